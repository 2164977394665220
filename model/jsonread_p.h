// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Tolerant readers over simdjson's on-demand values, shared by the snapshot builder and the
// capture reader. Ray and Kubernetes bodies are not a closed schema: numbers may arrive as
// strings (64-bit counters), booleans as "true", and any key may be missing or of another type.
// These helpers never throw for a wrong type; they return a default instead. Structural errors
// (truncated or invalid JSON) still surface through the caller's iteration.

#include <QByteArray>
#include <QString>

#include <simdjson.h>

#include <charconv>
#include <cstdlib>
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
        return v.get_string().get(s) == simdjson::SUCCESS ? qstr(s) : QString();
    }
    case od::json_type::number:
    case od::json_type::boolean: {
        std::string_view raw = v.raw_json_token();
        while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t'))
            raw.remove_suffix(1);
        return qstr(raw);
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
        return v.get_double().get(d) == simdjson::SUCCESS ? qint64(d) : fallback;
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
        return parseNumberText(s, &d) ? qint64(d) : fallback;
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

// Iterates an object's members as (key, value); does nothing for a value of another type.
template<typename F>
void forEachMember(od::value v, F &&f)
{
    if (typeOf(v) != od::json_type::object)
        return;
    od::object obj = take(v.get_object());
    for (auto member : obj) {
        od::field field = take(std::move(member));
        const std::string_view key = take(field.unescaped_key());
        f(key, field.value());
    }
}

// Iterates an array's elements; does nothing for a value of another type.
template<typename F>
void forEachElement(od::value v, F &&f)
{
    if (typeOf(v) != od::json_type::array)
        return;
    od::array arr = take(v.get_array());
    for (auto element : arr)
        f(take(std::move(element)));
}

} // namespace slicescope::json
