// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Tolerant readers over simdjson's on-demand values, shared by the snapshot builder and the
// capture reader. Ray and Kubernetes bodies are not a closed schema: numbers may arrive as
// strings (64-bit counters), booleans as "true", and any key may be missing or of another type.
// These helpers never throw for a wrong type; they return a default instead. Structural errors
// (truncated or invalid JSON) still surface through the caller's iteration.

#include "inputlimits.h"

#include <QByteArray>
#include <QString>

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>

namespace slicescope::json {

namespace od = simdjson::ondemand;

// A body ready for the on-demand parser, in place when the QByteArray has room for the padding.
class PaddedBody
{
public:
    explicit PaddedBody(const QByteArray &body)
    {
        if (body.capacity() - body.size() >= qsizetype(simdjson::SIMDJSON_PADDING)) {
            m_view = simdjson::padded_string_view(body.constData(), size_t(body.size()), size_t(body.capacity()));
        } else {
            m_copy = simdjson::padded_string(body.constData(), size_t(body.size()));
            m_view = simdjson::padded_string_view(m_copy);
        }
    }
    simdjson::padded_string_view view() const { return m_view; }

private:
    simdjson::padded_string m_copy;
    simdjson::padded_string_view m_view;
};

inline QString qstr(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

// What the readers below cut to stay within model/inputlimits.h while one body is read: the body's
// parse installs a CutLog (parseBody() in the snapshot builder) and names every cut in a warning.
struct CutLog {
    const char *base = nullptr; // the body's first byte, for offsets
    const char *end = nullptr;  // one past its last
    qint64 strings = 0, members = 0, elements = 0;
    qint64 firstString = -1, firstMembers = -1, firstElements = -1; // byte offsets of the first cut of each kind
    static CutLog *&current()
    {
        thread_local CutLog *log = nullptr;
        return log;
    }
    static void note(qint64 CutLog::*count, qint64 CutLog::*first, const char *at)
    {
        CutLog *log = current();
        if (!log)
            return;
        // Only a place in the body is a place (a string the parser unescaped lives in its own
        // buffer, anywhere in memory: its caller passes where the value stands in the body).
        if (log->*count == 0 && log->base && at >= log->base && at < log->end)
            log->*first = at - log->base;
        ++(log->*count);
    }
};

class CutLogScope
{
public:
    CutLogScope(CutLog &log, const char *base, qint64 size)
        : m_previous(CutLog::current())
    {
        log.base = base;
        log.end = base + size;
        CutLog::current() = &log;
    }
    ~CutLogScope() { CutLog::current() = m_previous; }
    CutLogScope(const CutLogScope &) = delete;
    CutLogScope &operator=(const CutLogScope &) = delete;

private:
    CutLog *m_previous;
};

// A string value within limits::kMaxStringLength bytes, cut at a UTF-8 character boundary.
// `at`: where the value stands in the body (null: where `s` is, for text read in place).
inline QString boundedQstr(std::string_view s, const char *at = nullptr)
{
    if (s.size() <= size_t(limits::kMaxStringLength))
        return qstr(s);
    CutLog::note(&CutLog::strings, &CutLog::firstString, at ? at : s.data());
    size_t cut = size_t(limits::kMaxStringLength);
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
        --cut;
    return qstr(s.substr(0, cut));
}

inline od::json_type typeOf(od::value &v)
{
    od::json_type t;
    if (v.type().get(t) != simdjson::SUCCESS)
        return od::json_type::null;
    return t;
}

inline QString toString(od::value v)
{
    switch (typeOf(v)) {
    case od::json_type::string: {
        std::string_view s;
        const char *at = v.raw_json_token().data(); // before get_string(), which unescapes elsewhere
        return v.get_string().get(s) == simdjson::SUCCESS ? boundedQstr(s, at) : QString();
    }
    case od::json_type::number:
    case od::json_type::boolean: {
        std::string_view raw = v.raw_json_token();
        while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t'))
            raw.remove_suffix(1);
        return boundedQstr(raw);
    }
    default:
        return {};
    }
}

inline bool parseNumberText(std::string_view s, double *out)
{
    while (!s.empty() && s.front() == ' ')
        s.remove_prefix(1);
#if defined(__cpp_lib_to_chars)
    auto res = std::from_chars(s.data(), s.data() + s.size(), *out);
    return res.ec == std::errc() && res.ptr != s.data();
#else
    // The browser build's libc++ (emscripten 3.1.6) has no floating-point from_chars; strtod
    // reads the same numbers there (the "C" locale is the only one).
    const std::string text(s);
    char *end = nullptr;
    *out = std::strtod(text.c_str(), &end);
    return end != text.c_str();
#endif
}

inline double toDouble(od::value v, double fallback = 0)
{
    switch (typeOf(v)) {
    case od::json_type::number: {
        double d;
        return v.get_double().get(d) == simdjson::SUCCESS ? d : fallback;
    }
    case od::json_type::string: {
        std::string_view s;
        double d;
        if (v.get_string().get(s) == simdjson::SUCCESS && parseNumberText(s, &d))
            return d;
        return fallback;
    }
    default:
        return fallback;
    }
}

// A double as an integer without undefined behaviour: NaN is `fallback`, the rest saturates.
inline qint64 doubleToInt(double d, qint64 fallback)
{
    if (std::isnan(d))
        return fallback;
    if (d >= 9.2e18)
        return INT64_MAX;
    if (d <= -9.2e18)
        return INT64_MIN;
    return qint64(d);
}

// An integer clamped into int's range (values from a capture are int fields downstream).
inline int saturatedInt(qint64 i)
{
    return int(std::clamp<qint64>(i, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
}

// A finite number (a JSON number or a number in a string: "4", "4.0"); false for anything else,
// NaN and infinities included ("NaN", "inf", 1e999).
inline bool toFiniteNumber(od::value v, double *out)
{
    double d = 0;
    switch (typeOf(v)) {
    case od::json_type::number:
        if (v.get_double().get(d) != simdjson::SUCCESS)
            return false;
        break;
    case od::json_type::string: {
        std::string_view s;
        if (v.get_string().get(s) != simdjson::SUCCESS || !parseNumberText(s, &d))
            return false;
        break;
    }
    default:
        return false;
    }
    if (!std::isfinite(d))
        return false;
    *out = d;
    return true;
}

inline qint64 toInt(od::value v, qint64 fallback = 0)
{
    switch (typeOf(v)) {
    case od::json_type::number: {
        int64_t i;
        if (v.get_int64().get(i) == simdjson::SUCCESS)
            return i;
        uint64_t u;
        if (v.get_uint64().get(u) == simdjson::SUCCESS)
            return qint64(u > uint64_t(INT64_MAX) ? INT64_MAX : u);
        double d;
        return v.get_double().get(d) == simdjson::SUCCESS ? doubleToInt(d, fallback) : fallback;
    }
    case od::json_type::string: {
        std::string_view s;
        if (v.get_string().get(s) != simdjson::SUCCESS)
            return fallback;
        long long i = 0;
        auto res = std::from_chars(s.data(), s.data() + s.size(), i);
        if (res.ec == std::errc() && res.ptr == s.data() + s.size())
            return i;
        double d;
        return parseNumberText(s, &d) ? doubleToInt(d, fallback) : fallback;
    }
    default:
        return fallback;
    }
}

inline bool toBool(od::value v, bool fallback = false)
{
    switch (typeOf(v)) {
    case od::json_type::boolean: {
        bool b;
        return v.get_bool().get(b) == simdjson::SUCCESS ? b : fallback;
    }
    case od::json_type::string: {
        std::string_view s;
        if (v.get_string().get(s) != simdjson::SUCCESS)
            return fallback;
        if (s == "true" || s == "True" || s == "yes")
            return true;
        if (s == "false" || s == "False" || s == "no")
            return false;
        return fallback;
    }
    default:
        return fallback;
    }
}

// Out of line on purpose: with the throw inside it, take() grew too large to be inlined and cost
// a function call per key read (about a tenth of buildSnapshot() on a large cluster).
[[noreturn]] Q_NEVER_INLINE inline void throwJsonError(simdjson::error_code error)
{
    throw simdjson::simdjson_error(error);
}

// Unwraps an on-demand result, throwing on a structural error (truncated or invalid input);
// parseBody() turns the exception into an error naming the body and the byte offset.
template<typename T>
T take(simdjson::simdjson_result<T> &&result)
{
    T value;
    if (const auto err = std::move(result).get(value); err != simdjson::SUCCESS) [[unlikely]]
        throwJsonError(err);
    return value;
}

// Iterates an object's members as (key, value), the first limits::kMaxMembersPerObject of them
// (the rest are still walked, so the body is still checked whole, and counted in the CutLog);
// does nothing for a value of another type.
template<typename F>
void forEachMember(od::value v, F &&f)
{
    if (typeOf(v) != od::json_type::object)
        return;
    const char *at = v.raw_json_token().data();
    od::object obj = take(v.get_object());
    int seen = 0;
    for (auto member : obj) {
        od::field field = take(std::move(member));
        if (++seen > limits::kMaxMembersPerObject) {
            if (seen == limits::kMaxMembersPerObject + 1)
                CutLog::note(&CutLog::members, &CutLog::firstMembers, at);
            continue;
        }
        const std::string_view key = take(field.unescaped_key());
        f(key, field.value());
    }
}

// Iterates an array's elements, the first `maxItems` of them (the rest are walked and counted in
// the CutLog); does nothing for a value of another type.
template<typename F>
void forEachElement(od::value v, F &&f, int maxItems = limits::kMaxNestedListItems)
{
    if (typeOf(v) != od::json_type::array)
        return;
    const char *at = v.raw_json_token().data();
    od::array arr = take(v.get_array());
    int seen = 0;
    for (auto element : arr) {
        od::value value = take(std::move(element));
        if (++seen > maxItems) {
            if (seen == maxItems + 1)
                CutLog::note(&CutLog::elements, &CutLog::firstElements, at);
            continue;
        }
        f(value);
    }
}

} // namespace slicescope::json
