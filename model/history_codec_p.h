// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The archives SnapshotHistory encodes versions and points with: varints (zigzag for signed
// values), Writer (a value to bytes: texts as string-table ids, references as handles) and
// Reader (bytes back to a value or, as Reader<true>, only releasing the texts they hold). The
// field lists they walk are the Codec<T> of history_kinds_p.h. Private to model/.

#include "history_storage_p.h"
#include "tpu.h"

#include <QStringList>

#include <cmath>
#include <cstring>

namespace slicescope::historydetail {

// ---- The codec ----------------------------------------------------------------------------------
//
// One field list per kind (Codec<T>::fields) drives three archives: Writer encodes, Reader
// decodes, and Reader<Scan> only visits the texts (to release them).

inline void putVarint(std::vector<uchar> &out, quint64 v)
{
    while (v >= 0x80) {
        out.push_back(uchar(v | 0x80));
        v >>= 7;
    }
    out.push_back(uchar(v));
}

// The varint at `p` (read no further than `end`); moves `p` past it.
inline quint64 getVarint(const uchar *&p, const uchar *end)
{
    quint64 v = 0;
    int shift = 0;
    while (p < end) {
        const uchar b = *p++;
        v |= quint64(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
        shift += 7;
    }
    return v;
}

inline quint64 zigzag(qint64 v)
{
    return (quint64(v) << 1) ^ quint64(v >> 63);
}

inline qint64 unzigzag(quint64 v)
{
    return qint64(v >> 1) ^ -qint64(v & 1);
}

class Writer
{
public:
    Writer(std::vector<uchar> &out, StringTable &strings, const HandleMaps &maps)
        : m_out(out)
        , m_strings(strings)
        , m_maps(maps)
    { }

    bool ok = true; // false: a value this codec cannot represent; keep the version plain

    void text(const QString &s) { putVarint(m_out, m_strings.acquire(s)); }
    void integer(qint64 v) { putVarint(m_out, zigzag(v)); }
    void integer(int v) { integer(qint64(v)); }
    void flag(bool b) { m_out.push_back(uchar(b)); }
    void number(double d)
    {
        // Whole numbers (TPU and CPU counts) take a byte or two; others their 8 bytes.
        if (d >= -1e9 && d <= 1e9 && double(qint64(d)) == d && !(d == 0 && std::signbit(d))) {
            putVarint(m_out, zigzag(qint64(d)) << 1);
        } else {
            m_out.push_back(1);
            uchar bytes[sizeof d];
            std::memcpy(bytes, &d, sizeof d);
            m_out.insert(m_out.end(), bytes, bytes + sizeof d);
        }
    }
    template<typename E>
    void enumeration(E e)
    { integer(int(e)); }
    void reference(Kind kind, int index) { integer(m_maps(kind, index)); }
    void generation(const tpu::Generation *g)
    {
        const QList<tpu::Generation> &all = tpu::generations();
        int code = 0;
        if (g) {
            for (int i = 0; i < all.size() && !code; ++i)
                if (&all[i] == g)
                    code = i + 1;
            ok = ok && code > 0;
        }
        integer(code);
    }
    void topology(const tpu::Topology &t)
    {
        integer(t.dims.x);
        integer(t.dims.y);
        integer(t.dims.z);
        integer(t.rank);
    }
    // Only the layouts buildSnapshot() makes: none, or the one of the slice's own shape.
    void layout(const tpu::SliceLayout &l, const tpu::Generation *g, const tpu::Topology &t, int chipsPerHost)
    {
        if (l == tpu::SliceLayout()) {
            flag(false);
        } else {
            ok = ok && g && l == tpu::SliceLayout(*g, t, chipsPerHost);
            flag(true);
        }
    }
    void texts(const QStringList &list)
    {
        putVarint(m_out, quint64(list.size()));
        for (const QString &s : list)
            text(s);
    }
    template<typename L, typename F>
    void list(const L &l, F &&each)
    {
        putVarint(m_out, quint64(l.size()));
        for (const auto &x : l)
            each(x);
    }

private:
    std::vector<uchar> &m_out;
    StringTable &m_strings;
    const HandleMaps &m_maps;
};

// Decodes (Scan = false) or releases the texts of (Scan = true) one encoding.
template<bool Scan>
class Reader
{
public:
    Reader(const uchar *data, quint32 size, StringTable &strings, const IndexMaps *maps)
        : m_p(data)
        , m_end(data + size)
        , m_strings(strings)
        , m_maps(maps)
    {
    }

    void text(QString &s)
    {
        const quint32 id = quint32(varint());
        if constexpr (Scan)
            m_strings.release(id);
        else
            s = m_strings.at(id);
    }
    void integer(qint64 &v) { v = unzigzag(varint()); }
    void integer(int &v) { v = int(unzigzag(varint())); }
    void flag(bool &b) { b = *m_p++ != 0; }
    void number(double &d)
    {
        const quint64 v = varint();
        if (v & 1) {
            std::memcpy(&d, m_p, sizeof d);
            m_p += sizeof d;
        } else {
            d = double(unzigzag(v >> 1));
        }
    }
    template<typename E>
    void enumeration(E &e)
    { e = E(int(unzigzag(varint()))); }
    void reference(Kind kind, int &index)
    {
        const int handle = int(unzigzag(varint()));
        if constexpr (!Scan)
            index = (*m_maps)(kind, handle);
    }
    void generation(const tpu::Generation *&g)
    {
        const int code = int(unzigzag(varint()));
        g = code > 0 ? &tpu::generations()[code - 1] : nullptr;
    }
    void topology(tpu::Topology &t)
    {
        integer(t.dims.x);
        integer(t.dims.y);
        integer(t.dims.z);
        integer(t.rank);
    }
    void layout(tpu::SliceLayout &l, const tpu::Generation *g, const tpu::Topology &t, int chipsPerHost)
    {
        bool shaped = false;
        flag(shaped);
        if constexpr (!Scan) {
            if (shaped && g)
                l = tpu::SliceLayout(*g, t, chipsPerHost);
        }
    }
    void texts(QStringList &list)
    {
        const qsizetype n = qsizetype(varint());
        if constexpr (Scan) {
            QString ignored;
            for (qsizetype i = 0; i < n; ++i)
                text(ignored);
        } else {
            list.resize(n);
            for (QString &s : list)
                text(s);
        }
    }
    template<typename L, typename F>
    void list(L &l, F &&each)
    {
        const qsizetype n = qsizetype(varint());
        if constexpr (Scan) {
            typename L::value_type scratch;
            for (qsizetype i = 0; i < n; ++i)
                each(scratch);
        } else {
            l.resize(n);
            for (auto &x : l)
                each(x);
        }
    }
    bool atEnd() const { return m_p == m_end; }

private:
    quint64 varint() { return getVarint(m_p, m_end); }

    const uchar *m_p;
    const uchar *m_end;
    StringTable &m_strings;
    const IndexMaps *m_maps;
};
} // namespace slicescope::historydetail
