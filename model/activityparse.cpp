// SPDX-License-Identifier: GPL-3.0-or-later
// The activity join's parse side: Ray's node summary and Prometheus's answers read into the values
// model/activityjoin.cpp joins to chips, each body parsed once while captures carry it.
#include "activityparse_p.h"

#include "snapshotread_p.h"

#include <QMutex>
#include <QMutexLocker>
#if QT_CONFIG(thread)
#include <QRunnable>
#include <QSemaphore>
#include <QThreadPool>
#endif

#include <algorithm>
#include <charconv>
#include <exception>
#include <iterator>
#include <utility>

namespace slicescope::activityparse {

using namespace snapshotread;

bool startsAsSuccess(const QByteArray &body)
{
    return body.startsWith(R"({"status":"success")");
}

namespace {

// Ray node ids are hex; a body may spell them in capitals. Lowered as the QString is made (one
// allocation per entry, not a std::string and then a QString).
QString lowered(std::string_view s)
{
    s = s.substr(0, 128);
    QString out(qsizetype(s.size()), Qt::Uninitialized);
    char16_t *d = reinterpret_cast<char16_t *>(out.data());
    for (size_t i = 0; i < s.size(); ++i) {
        const unsigned char ch = static_cast<unsigned char>(s[i]);
        d[i] = ch >= 'A' && ch <= 'Z' ? char16_t(ch - 'A' + 'a') : char16_t(ch); // Latin-1, as fromLatin1() read it
    }
    return out;
}

// The bodies read here are big (a 10k-node cluster's summary is 14 MB, Prometheus's answers 30 MB)
// and their keys plain ASCII names: walking them with keys and label values as written, rather
// than unescaped into the parser's buffer, halves the join's time. A key with an escape in it
// matches none of the names looked for; a value with one is unescaped as usual.

// The key of a member as written (it ends at the first quote: a key with an escaped quote keeps
// its backslash, and so matches nothing).
inline std::string_view plainKey(const od::raw_json_string &key)
{
    const char *p = key.raw();
    size_t n = 0;
    while (p[n] != '"') // the parser checked that the string is closed
        ++n;
    return {p, n};
}

// Like json::forEachMember (bounded alike), with plainKey() keys.
template<typename F>
void forEachPlainMember(od::value v, F &&f)
{
    if (typeOf(v) != od::json_type::object) return;
    const char *at = v.raw_json_token().data();
    od::object obj = take(v.get_object());
    int seen = 0;
    for (auto member : obj) {
        od::field field = take(std::move(member));
        if (++seen > limits::kMaxMembersPerObject) {
            if (seen == limits::kMaxMembersPerObject + 1) CutLog::note(&CutLog::members, &CutLog::firstMembers, at);
            continue;
        }
        f(plainKey(field.key()), field.value());
    }
}

// A string value's text: as written when it holds no escape (the common case), else unescaped by
// the parser. False for anything but a string.
inline bool textOf(od::value &v, std::string_view &out)
{
    std::string_view t = v.raw_json_token();
    if (t.empty() || t.front() != '"') return false;
    while (t.size() > 1 && t.back() != '"') // the token runs on over the spaces after it
        t.remove_suffix(1);
    if (t.size() < 2) return false;
    t = t.substr(1, t.size() - 2);
    if (t.find('\\') == std::string_view::npos) {
        out = t;
        return true;
    }
    return v.get_string().get(out) == simdjson::SUCCESS;
}

Metric metricOf(std::string_view name, bool rayPrefix)
{
    if (rayPrefix) {
        if (name.substr(0, 8) != "ray_tpu_")
            return Metric::None;
        name.remove_prefix(8);
    }
    if (name == "duty_cycle") return Metric::DutyCycle;
    if (name == "tensorcore_utilization") return Metric::Tensorcore;
    if (name == "memory_bandwidth_utilization") return Metric::HbmBandwidth;
    if (name == "memory_used") return Metric::HbmUsed;
    if (name == "memory_total") return Metric::HbmTotal;
    return Metric::None;
}

// "4804690994094478883-3" -> 3 (the device plugin's accelerator_id; Ray takes what follows the dash).
int acceleratorIndex(std::string_view id)
{
    const size_t dash = id.rfind('-');
    if (dash == std::string_view::npos || dash + 1 >= id.size())
        return -1;
    int i = -1;
    const auto res = std::from_chars(id.data() + dash + 1, id.data() + id.size(), i);
    return res.ec == std::errc() && res.ptr == id.data() + id.size() && i >= 0 && i < limits::kMaxChipsPerHost * limits::kMaxHostsPerSlice ? i : -1;
}

int smallIndex(std::string_view text)
{
    int i = -1;
    const auto res = std::from_chars(text.data(), text.data() + text.size(), i);
    return res.ec == std::errc() && res.ptr == text.data() + text.size() && i >= 0 && i < limits::kMaxChipsPerHost ? i : -1;
}

// toFiniteNumber() and toInt() of model/jsonread_p.h, with the common case first: a JSON number
// read straight away. Asking a value's type before reading it cost more than the read (195k
// numbers in a 10k-node summary). A failed read leaves the value where it was (simdjson advances
// only on success), so anything else takes the general path, with its results.
inline bool finiteNumberOf(od::value v, double *out)
{
    double d = 0;
    if (v.get_double().get(d) == simdjson::SUCCESS) {
        if (!std::isfinite(d)) return false;
        *out = d;
        return true;
    }
    return toFiniteNumber(v, out);
}

inline qint64 intOf(od::value v, qint64 fallback)
{
    int64_t i = 0;
    if (v.get_int64().get(i) == simdjson::SUCCESS) return i;
    return toInt(v, fallback);
}

// Which of a chip's numbers a key names (SummaryChip::values), -1: none; -2: "index".
inline int chipSlot(std::string_view k)
{
    switch (k.size()) {
    case 5: return k == "index" ? -2 : -1;
    case 9: return k == "dutyCycle" ? 0 : -1;
    case 10:
        if (k == "duty_cycle") return 0;
        return k == "memoryUsed" ? 3 : -1;
    case 11:
        if (k == "memory_used") return 3;
        return k == "memoryTotal" ? 4 : -1;
    case 12: return k == "memory_total" ? 4 : -1;
    case 14: return k == "hbmUtilization" ? 2 : -1;
    case 15: return k == "hbm_utilization" ? 2 : -1;
    case 21: return k == "tensorcoreUtilization" ? 1 : -1;
    case 22: return k == "tensorcore_utilization" ? 1 : -1;
    default: return -1;
    }
}

// GET /nodes?view=summary: {"result", "msg", "data": {"summary": [ {"now", "ip", "raylet": {"nodeId",
// "nodeManagerAddress", "metricsExportPort", ...}, "tpus": [...] }, ...]}}.
void readSummaryEntry(od::value entry, SummaryEntry &e, std::vector<SummaryChip> &chips)
{
    e.firstChip = int(chips.size());
    std::string_view address;
    qint64 port = -1;
    bool dead = false;
    forEachPlainMember(entry, [&](std::string_view k, od::value v) {
        if (k == "now") {
            finiteNumberOf(v, &e.now);
        } else if (k == "raylet") {
            forEachPlainMember(v, [&](std::string_view rk, od::value rv) {
                std::string_view text;
                if (rk == "metricsExportPort" || rk == "metrics_export_port") port = intOf(rv, -1);
                else if (!textOf(rv, text)) return;
                else if (rk == "nodeId" || rk == "node_id") e.nodeId = lowered(text);
                else if (rk == "nodeManagerAddress" || rk == "node_manager_address") address = text.substr(0, 128);
                else if (rk == "state") dead = text == "DEAD";
            });
        } else if (k == "tpus") {
            e.sawTpus = typeOf(v) == od::json_type::array;
            forEachElement(v, [&](od::value tv) {
                SummaryChip c;
                forEachPlainMember(tv, [&](std::string_view tk, od::value x) {
                    const int slot = chipSlot(tk);
                    if (slot >= 0) c.has[slot] = finiteNumberOf(x, &c.values[slot]);
                    else if (slot == -2) c.index = int(intOf(x, -1));
                });
                // A host has at most kMaxChipsPerHost chips: the rest could name none of them.
                if (c.index >= 0 && c.index < limits::kMaxChipsPerHost && e.chipCount < limits::kMaxChipsPerHost) {
                    chips.push_back(c);
                    ++e.chipCount;
                }
            });
        }
    });
    // A dead node keeps its address and port in the summary, and its successor often has both:
    // only a live node names an instance.
    if (!dead && !e.nodeId.isEmpty() && !address.empty() && port > 0 && port < 65536) {
        e.instance.assign(address);
        e.instance += ':';
        e.instance += std::to_string(port);
    }
}

std::shared_ptr<const ParsedSummary> parseSummary(const QByteArray &body)
{
    auto out = std::make_shared<ParsedSummary>();
    out->body = body;
    bool sawSummary = false;
    out->ok = parseBody(body, "ray.node_summary", out->errors, out->warnings, [&](od::value root) -> QString {
        if (typeOf(root) != od::json_type::object) return QStringLiteral("expected an object, got %1").arg(describeType(root));
        forEachPlainMember(root, [&](std::string_view k, od::value v) {
            if (k != "data") return;
            forEachPlainMember(v, [&](std::string_view k2, od::value list) {
                if (k2 != "summary") return;
                sawSummary = typeOf(list) == od::json_type::array;
                forEachElement(
                    list,
                    [&](od::value entry) {
                        out->entries.emplace_back();
                        readSummaryEntry(entry, out->entries.back(), out->chips);
                    },
                    limits::kMaxListItems);
            });
        });
        return sawSummary ? QString() : QStringLiteral("no data.summary list (is this GET /nodes?view=summary?)");
    });
    if (!out->ok) {
        out->entries.clear();
        out->chips.clear();
    }
    out->byInstance.reserve(out->entries.size());
    for (size_t i = 0; i < out->entries.size(); ++i)
        if (!out->entries[i].instance.empty()) out->byInstance.insert_or_assign(out->entries[i].instance, int(i));
    return out;
}

// Label values, each kept once per answer (10k hosts' addresses over 200k series).
class Interner
{
public:
    explicit Interner(std::deque<std::string> &strings)
        : m_strings(strings)
    {
    }
    enum Label
    {
        Ip,
        Instance,
        Pod,
        Namespace,
        Labels
    };
    quint32 operator()(std::string_view text, Label label)
    {
        if (text.empty()) return 0;
        // A host's series follow each other: a label's value is most often the one it had last.
        quint32 &last = m_last[label];
        if (last && m_strings[last] == text) return last;
        last = find(text);
        return last;
    }

private:
    quint32 find(std::string_view text)
    {
        if (const auto it = m_index.find(text); it != m_index.end()) return it->second;
        m_strings.emplace_back(text);
        const auto id = quint32(m_strings.size() - 1);
        m_index.emplace(std::string_view(m_strings.back()), id);
        return id;
    }

    std::deque<std::string> &m_strings;
    std::unordered_map<std::string_view, quint32> m_index;
    quint32 m_last[Labels] = {0, 0, 0, 0};
};

ParsedSeries readSeries(od::value item, bool rayNames, bool window, Interner &intern)
{
    ParsedSeries x;
    forEachPlainMember(item, [&](std::string_view k, od::value v) {
        if (k == "metric") {
            forEachPlainMember(v, [&](std::string_view lk, od::value lv) {
                std::string_view text;
                if (!textOf(lv, text)) return;
                if (lk == "__name__") x.metric = metricOf(text, rayNames);
                else if (lk == "ip") x.ip = intern(text.substr(0, 64), Interner::Ip);
                else if (lk == "instance") x.instance = intern(text.substr(0, 128), Interner::Instance);
                else if (lk == "pod") x.pod = intern(text.substr(0, 253), Interner::Pod);
                else if (lk == "namespace") x.ns = intern(text.substr(0, 63), Interner::Namespace);
                else if (lk == "TpuIndex" && rayNames) x.index = smallIndex(text);
                else if (lk == "accelerator_id" && !rayNames) x.index = acceleratorIndex(text);
            });
        } else if (k == "value") {
            int i = 0;
            forEachElement(v, [&](od::value e) {
                double d = 0;
                if (i == 0 && finiteNumberOf(e, &d)) x.atMs = doubleToInt(d * 1000, 0); // saturated: a timestamp of 1e300 is no UB
                if (i == 1) x.valueOk = finiteNumberOf(e, &x.value);
                ++i;
            });
        }
    });
    if (window) x.metric = Metric::DutyCycle; // max_over_time drops the name
    return x;
}

// {"status": "success"|"error", "errorType", "error", "data": {"resultType": "vector", "result":
// [{"metric": {...}, "value": [ts, "v"]}]}}
std::shared_ptr<const ParsedAnswer> parseAnswer(const Capture::PrometheusAnswer &answer, bool rayNames, bool window)
{
    auto out = std::make_shared<ParsedAnswer>();
    out->query = answer.query;
    out->body = answer.body;
    out->rayNames = rayNames;
    out->window = window;
    Interner intern(out->strings);
    out->ok = parseBody(answer.body, "prometheus", out->errors, out->warnings, [&](od::value root) -> QString {
        if (typeOf(root) != od::json_type::object) return QStringLiteral("expected an object, got %1").arg(describeType(root));
        forEachPlainMember(root, [&](std::string_view k, od::value v) {
            if (k == "status") out->status = toString(v);
            else if (k == "errorType") out->errorType = toString(v);
            else if (k == "error") out->error = toString(v).left(200);
            else if (k == "data")
                forEachPlainMember(v, [&](std::string_view dk, od::value dv) {
                    if (dk == "resultType") out->resultType = toString(dv);
                    else if (dk == "result")
                        forEachElement(dv, [&](od::value item) { out->series.push_back(readSeries(item, rayNames, window, intern)); }, kMaxSeries);
                });
        });
        return {};
    });
    if (!out->ok) out->series.clear(); // a body cut in the middle leaves no half of its numbers behind
    return out;
}

// The newest parse of the node summary and of each query's answer (a handful of queries).
class ParseCache
{
public:
    bool hasSummary(const QByteArray &body)
    {
        QMutexLocker lock(&m_mutex);
        return m_summary && sameBuffer(m_summary->body, body);
    }

    bool hasAnswer(const Capture::PrometheusAnswer &a, bool rayNames, bool window)
    {
        QMutexLocker lock(&m_mutex);
        return std::any_of(m_answers.begin(), m_answers.end(), [&](const auto &p) { return p->query == a.query && p->rayNames == rayNames && p->window == window && sameBuffer(p->body, a.body); });
    }

    std::shared_ptr<const ParsedSummary> summary(const QByteArray &body)
    {
        {
            QMutexLocker lock(&m_mutex);
            if (m_summary && sameBuffer(m_summary->body, body)) return m_summary;
        }
        auto parsed = parseSummary(body);
        std::shared_ptr<const ParsedSummary> previous;
        {
            QMutexLocker lock(&m_mutex);
            previous = std::exchange(m_summary, parsed);
        }
        releaseBeside(std::move(previous));
        return parsed;
    }

    std::shared_ptr<const ParsedAnswer> answer(const Capture::PrometheusAnswer &a, bool rayNames, bool window)
    {
        {
            QMutexLocker lock(&m_mutex);
            for (const auto &p : m_answers)
                if (p->query == a.query && p->rayNames == rayNames && p->window == window && sameBuffer(p->body, a.body)) return p;
        }
        auto parsed = parseAnswer(a, rayNames, window);
        std::vector<std::shared_ptr<const ParsedAnswer>> previous;
        {
            QMutexLocker lock(&m_mutex);
            const auto replaced = std::stable_partition(m_answers.begin(), m_answers.end(), [&](const auto &p) { return p->query != a.query; });
            std::move(replaced, m_answers.end(), std::back_inserter(previous));
            m_answers.erase(replaced, m_answers.end());
            if (m_answers.size() >= kMaxAnswers) {
                previous.push_back(std::move(m_answers.front()));
                m_answers.erase(m_answers.begin());
            }
            m_answers.push_back(parsed);
        }
        for (auto &p : previous)
            releaseBeside(std::move(p));
        return parsed;
    }

private:
    static constexpr size_t kMaxAnswers = 8;
    // Equal bytes are not enough to be cheap: only the same buffer is known equal for free.
    static bool sameBuffer(const QByteArray &a, const QByteArray &b) { return !a.isEmpty() && a.size() == b.size() && a.constData() == b.constData(); }

    QMutex m_mutex; // buildSnapshot() may run on any thread; a QMutex also builds for the browser's single-threaded Qt
    std::shared_ptr<const ParsedSummary> m_summary;
    std::vector<std::shared_ptr<const ParsedAnswer>> m_answers;
};

ParseCache &parseCache()
{
    static ParseCache cache;
    return cache;
}

} // namespace

std::shared_ptr<const ParsedSummary> cachedSummary(const QByteArray &body)
{
    return parseCache().summary(body);
}

std::shared_ptr<const ParsedAnswer> cachedAnswer(const Capture::PrometheusAnswer &answer, bool rayNames, bool window)
{
    return parseCache().answer(answer, rayNames, window);
}

bool hasCachedSummary(const QByteArray &body)
{
    return parseCache().hasSummary(body);
}

bool hasCachedAnswer(const Capture::PrometheusAnswer &answer, bool rayNames, bool window)
{
    return parseCache().hasAnswer(answer, rayNames, window);
}

struct SideTask::State {
    std::function<void()> work;
    std::exception_ptr error;
    bool waited = false;
#if QT_CONFIG(thread)
    QRunnable *runnable = nullptr; // owned here (not auto-deleted): wait() may take it back unrun
    QSemaphore done;
    ~State() { delete runnable; }
#endif
    void run()
    {
        try {
            work();
        } catch (...) {
            error = std::current_exception();
        }
    }
};

#if QT_CONFIG(thread)
namespace {
// One thread of its own, kept between joins (its simdjson parser keeps its buffers, sized by the
// bodies it read): the global pool's threads are anyone's.
QThreadPool &sidePool()
{
    static QThreadPool *pool = [] {
        auto *p = new QThreadPool; // never deleted: a static's destructor would run after QCoreApplication's
        p->setMaxThreadCount(1);
        return p;
    }();
    return *pool;
}
} // namespace
#endif

void releaseBeside(std::shared_ptr<const void> held)
{
    if (!held) return;
#if QT_CONFIG(thread)
    sidePool().start([held = std::move(held)]() mutable { held.reset(); });
#else
    held.reset();
#endif
}

SideTask::SideTask(std::function<void()> work)
    : m_state(std::make_unique<State>())
{
    m_state->work = std::move(work);
#if QT_CONFIG(thread)
    State *state = m_state.get(); // outlives the runnable: wait() returns only once it ran or was taken back
    m_state->runnable = QRunnable::create([state] {
        state->run();
        state->done.release();
    });
    m_state->runnable->setAutoDelete(false);
    sidePool().start(m_state->runnable);
#endif
}

SideTask::~SideTask()
{
    if (!m_state->waited) {
        try {
            wait();
        } catch (...) {
            // the caller is unwinding already, or chose not to ask
        }
    }
}

void SideTask::wait()
{
    if (m_state->waited) return;
    m_state->waited = true;
#if QT_CONFIG(thread)
    if (sidePool().tryTake(m_state->runnable))
        m_state->run(); // not started yet (the thread was busy): run here rather than wait for it
    else
        m_state->done.acquire();
#else
    m_state->run();
#endif
    if (m_state->error) std::rethrow_exception(m_state->error);
}

} // namespace slicescope::activityparse
