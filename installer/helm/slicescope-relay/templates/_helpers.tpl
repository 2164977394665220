{{- /*
SPDX-License-Identifier: GPL-3.0-or-later
Names, labels and the checks every rendering passes through (templates/deployment.yaml includes
"slicescope-relay.validate", so a bad value fails `helm install` and `helm template` alike).
*/ -}}

{{- /* The base name: "slicescope-relay" unless values say otherwise. */ -}}
{{- define "slicescope-relay.name" -}}
{{- .Values.name | default "slicescope-relay" -}}
{{- end -}}

{{- /* What the Deployment selects and the Service routes to: the label installer/kubernetes/ uses. */ -}}
{{- define "slicescope-relay.selectorLabels" -}}
app.kubernetes.io/name: {{ include "slicescope-relay.name" . }}
{{- end -}}

{{- /* Every object's labels: the selector label, then Helm's own (never part of a selector). */ -}}
{{- define "slicescope-relay.labels" -}}
{{ include "slicescope-relay.selectorLabels" . }}
app.kubernetes.io/instance: {{ .Release.Name | quote }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | quote }}
{{- end -}}

{{- define "slicescope-relay.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion | toString) -}}
{{- end -}}

{{- /* The RBAC subject: the relay's ServiceAccount in the release's namespace. */ -}}
{{- define "slicescope-relay.subjects" -}}
subjects:
  - kind: ServiceAccount
    name: {{ include "slicescope-relay.name" . }}
    namespace: {{ .Release.Namespace }}
{{- end -}}

{{- /*
The namespaced rules (docs/facts.md 4.3), the same for a Role (scope namespace) and a ClusterRole
(scope cluster): read RayClusters, pods and events, patch RayClusters (scaling, with JSON Patch test
ops), reach the Ray head's dashboard through the API server's service proxy. No delete, no create,
no secrets, no exec.
*/ -}}
{{- define "slicescope-relay.rules" -}}
rules:
  - apiGroups: ["ray.io"]
    resources: ["rayclusters"]
    verbs: ["get", "list", "watch", "patch"]
  - apiGroups: [""]
    resources: ["pods", "events"]
    verbs: ["get", "list", "watch"]
  - apiGroups: [""]
    resources: ["services/proxy"]
    verbs: ["get"]
{{- end -}}

{{- /* Refuses values that would render a relay that cannot start, or more than was asked for. */ -}}
{{- define "slicescope-relay.validate" -}}
{{- if not (has .Values.scope (list "namespace" "cluster")) -}}
{{- fail (printf "scope must be \"namespace\" (the release's namespace) or \"cluster\" (every namespace), not %v" .Values.scope) -}}
{{- end -}}
{{- $name := include "slicescope-relay.name" . -}}
{{- if or (gt (len $name) 57) (not (regexMatch "^[a-z]([-a-z0-9]*[a-z0-9])?$" $name)) -}}
{{- fail (printf "name %q must be a DNS label of at most 57 characters (lower-case letters, digits, '-'; it gets the suffix -nodes)" $name) -}}
{{- end -}}
{{- $secret := .Values.token.existingSecret | default "" | toString -}}
{{- if or (gt (len $secret) 253) (not (regexMatch "^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$" $secret)) -}}
{{- fail "token.existingSecret must name the token's Secret (a DNS subdomain, e.g. slicescope-relay-token)" -}}
{{- end -}}
{{- $token := .Values.token.value | default "" | toString -}}
{{- if .Values.token.create -}}
{{- /* Never quote the value in a message: it is the team's password. */ -}}
{{- if or (lt (len $token) 16) (gt (len $token) 4096) (not (regexMatch "^[A-Za-z0-9._/=-]+$" $token)) -}}
{{- fail "token.create=true needs token.value: 16 to 4096 characters of letters, digits, '.', '_', '/', '=', '-' (it goes in a URL and a cookie), e.g. the output of `head -c 32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\\n'`" -}}
{{- end -}}
{{- else if $token -}}
{{- fail "token.value is only used with token.create=true; without it the relay reads the Secret token.existingSecret, which you create yourself" -}}
{{- end -}}
{{- if not (kindIs "map" (.Values.resources | default dict)) -}}
{{- fail "resources must be a map (requests, limits)" -}}
{{- end -}}
{{- $port := .Values.service.port | int -}}
{{- if or (lt $port 1) (gt $port 65535) -}}
{{- fail (printf "service.port must be a port number (1 to 65535), not %v" .Values.service.port) -}}
{{- end -}}
{{- end -}}
