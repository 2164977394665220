// SPDX-License-Identifier: GPL-3.0-or-later
#include "kubenames.h"

#include <QUrl>

namespace slicescope {

namespace {

bool isLowerAlnum(QChar c)
{
    return (c >= u'a' && c <= u'z') || (c >= u'0' && c <= u'9');
}

bool isLabel(QStringView value)
{
    if (value.isEmpty() || value.size() > kMaxDns1123LabelChars)
        return false;
    if (!isLowerAlnum(value.front()) || !isLowerAlnum(value.back()))
        return false;
    for (QChar c : value) {
        if (!isLowerAlnum(c) && c != u'-')
            return false;
    }
    return true;
}

} // namespace

QString dns1123LabelProblem(const QString &value)
{
    if (isLabel(value))
        return {};
    return QStringLiteral("must be a DNS-1123 label: 1 to %1 lowercase letters, digits or '-', starting and ending with a letter or digit")
        .arg(kMaxDns1123LabelChars);
}

QString dns1123SubdomainProblem(const QString &value)
{
    bool ok = !value.isEmpty() && value.size() <= kMaxDns1123SubdomainChars;
    if (ok) {
        for (QStringView label : QStringView(value).split(u'.')) {
            if (!isLabel(label)) {
                ok = false;
                break;
            }
        }
    }
    if (ok)
        return {};
    return QStringLiteral("must be a DNS-1123 subdomain: at most %1 characters of dot-separated labels of lowercase letters, digits "
                          "or '-', each starting and ending with a letter or digit")
        .arg(kMaxDns1123SubdomainChars);
}

QString labelValueProblem(const QString &value)
{
    const auto alnum = [](QChar c) {
        return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9');
    };
    bool ok = !value.isEmpty() && value.size() <= kMaxDns1123LabelChars && alnum(value.front()) && alnum(value.back());
    for (qsizetype i = 0; ok && i < value.size(); ++i)
        ok = alnum(value[i]) || value[i] == u'-' || value[i] == u'_' || value[i] == u'.';
    if (ok)
        return {};
    return QStringLiteral("must be a Kubernetes label value: 1 to %1 letters, digits, '-', '_' or '.', starting and ending with a letter "
                          "or digit")
        .arg(kMaxDns1123LabelChars);
}

QString pathSegment(const QString &value)
{
    return QString::fromLatin1(QUrl::toPercentEncoding(value));
}

} // namespace slicescope
