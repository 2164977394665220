// SPDX-License-Identifier: GPL-3.0-or-later
// SnapshotHistory's stored form (history.h says why it exists):
//  - Identities: per kind, a key (Ray node id, pod ns/name, slice name, placement group id...)
//    gets a handle, a small number that stays the same while the object lives. Cross references
//    (Host::rayNode, ChipUse::placementGroup, Bundle::slice...) are stored as handles, so a list
//    gaining or losing an item elsewhere does not change the objects that point into it.
//  - Versions: one object as it was between two changes, encoded compactly (varints; every text
//    is an id into one reference-counted string table, so a text is held once however many
//    versions and objects repeat it). Each encoding is decoded and compared with the original
//    before it is kept; anything the codec does not reproduce exactly (a field added to
//    snapshot.h and not yet encoded here) is kept as a plain copy instead, so rebuilt snapshots
//    always equal the originals.
//  - Entries: per kind, the versions new in the entry, the handles of objects gone, and either
//    every version of the list (a keyframe, every kKeyframeEvery entries) or a few bytes of
//    operations that rebuild the list from the previous entry's (skip n, copy n, take n new ones).
//    What an object was before a change is found in the previous entry's list.
// A new snapshot is compared with the previous one (kept as `latest`, with indexes mapped to
// handles on both sides): only objects that differ are encoded, the rest reuse their version.
// Encoded versions live in an arena of their own (see Arena); texts in the string table.
//
// Where the bytes go, measured (slicescope-bench history, an hour of 2-second snapshots of a
// 10k-node, 10k-group cluster with 1% of objects changing each time: 64 MB in all, 36 KB per
// snapshot): versions 42% (~95 bytes each, ~150 new per snapshot), texts 32% (mostly the new
// ids of placement groups and Ray nodes), identities 12%, list operations and change lists 6%,
// entries 4%, keyframes 4%.

#include "history.h"

#include <QDebug>
#include <QHash>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace slicescope {

namespace {

// ---- Byte estimates -----------------------------------------------------------------------------
//
// What the heap really spends: glibc's malloc adds an 8-byte header, rounds to 16 and never hands
// out less than 32 bytes. Qt's array data (QString, QList) carries a 16-byte header.

constexpr qint64 heapBlock(qint64 payload)
{
    return std::max<qint64>(32, (payload + 8 + 15) & ~qint64(15));
}

qint64 stringBytes(const QString &s)
{
    if (s.capacity() == 0) // null, empty or a literal: nothing on the heap
        return 0;
    return heapBlock(16 + (s.capacity() + 1) * qint64(sizeof(char16_t)));
}

template<typename T>
qint64 arrayBytes(const QList<T> &list)
{
    if (list.capacity() == 0)
        return 0;
    return heapBlock(16 + list.capacity() * qint64(sizeof(T)));
}

template<typename T>
qint64 vectorBytes(const std::vector<T> &v)
{
    return v.capacity() ? heapBlock(qint64(v.capacity() * sizeof(T))) : 0;
}

// libstdc++ keeps a deque in 512-byte blocks, plus a map of block pointers.
template<typename T>
qint64 dequeBytes(const std::deque<T> &d)
{
    const qint64 perBlock = std::max<qint64>(1, 512 / qint64(sizeof(T)));
    const qint64 blocks = (qint64(d.size()) + perBlock - 1) / perBlock + 1;
    return blocks * (heapBlock(512) + 8);
}

// ---- A hash index of ids whose keys live elsewhere -----------------------------------------------
//
// Open addressing over 32-bit ids (4 bytes a slot, instead of a QHash node per key): the string
// table and the identity tables look texts up by content without storing them twice.

class IdIndex
{
public:
    static constexpr quint32 kEmpty = 0xffffffffu;
    static constexpr quint32 kGone = 0xfffffffeu;

    // `keyOf(id)` gives the text of an id.
    template<typename KeyOf>
    std::optional<quint32> find(QStringView key, size_t hash, KeyOf &&keyOf) const
    {
        if (m_slots.empty())
            return std::nullopt;
        const size_t mask = m_slots.size() - 1;
        for (size_t i = hash & mask;; i = (i + 1) & mask) {
            const quint32 id = m_slots[i];
            if (id == kEmpty)
                return std::nullopt;
            if (id != kGone && keyOf(id) == key)
                return id;
        }
    }
    template<typename KeyOf>
    void insert(quint32 id, size_t hash, KeyOf &&keyOf)
    {
        if ((m_used + m_gone + 1) * 10 > m_slots.size() * 7)
            rehash(std::max<size_t>(64, m_used * 4), keyOf);
        const size_t mask = m_slots.size() - 1;
        size_t i = hash & mask;
        while (m_slots[i] != kEmpty && m_slots[i] != kGone)
            i = (i + 1) & mask;
        m_gone -= m_slots[i] == kGone;
        m_slots[i] = id;
        ++m_used;
    }
    template<typename KeyOf>
    void remove(quint32 id, size_t hash, KeyOf &&)
    {
        const size_t mask = m_slots.size() - 1;
        for (size_t i = hash & mask;; i = (i + 1) & mask) {
            if (m_slots[i] == kEmpty)
                return;
            if (m_slots[i] == id) {
                m_slots[i] = kGone;
                --m_used;
                ++m_gone;
                return;
            }
        }
    }
    qint64 bytes() const { return vectorBytes(m_slots); }
    void clear()
    {
        m_slots = {};
        m_used = m_gone = 0;
    }

private:
    template<typename KeyOf>
    void rehash(size_t minimum, KeyOf &&keyOf)
    {
        size_t size = 64;
        while (size < minimum)
            size *= 2;
        std::vector<quint32> old = std::move(m_slots);
        m_slots.assign(size, kEmpty);
        m_used = m_gone = 0;
        for (quint32 id : old)
            if (id != kEmpty && id != kGone) {
                const size_t mask = size - 1;
                size_t i = qHash(keyOf(id)) & mask;
                while (m_slots[i] != kEmpty)
                    i = (i + 1) & mask;
                m_slots[i] = id;
                ++m_used;
            }
    }

    std::vector<quint32> m_slots;
    size_t m_used = 0;
    size_t m_gone = 0;
};

// ---- The string table ---------------------------------------------------------------------------

// Every text of every encoded version, once, reference counted by the versions using it.
// Id 0 is the empty text.
class StringTable
{
public:
    StringTable()
        : m_strings(1)
        , m_refs(1, 1)
    { }

    quint32 acquire(const QString &s)
    {
        if (s.isEmpty())
            return 0;
        const size_t hash = qHash(s);
        auto keyOf = [this](quint32 id) -> const QString & {
            return m_strings[id];
        };
        if (const auto id = m_index.find(s, hash, keyOf)) {
            ++m_refs[*id];
            return *id;
        }
        quint32 id;
        if (!m_free.empty()) {
            id = m_free.back();
            m_free.pop_back();
            m_strings[id] = s;
            m_refs[id] = 1;
        } else {
            id = quint32(m_strings.size());
            m_strings.push_back(s);
            m_refs.push_back(1);
        }
        // Not squeezed: the text stays shared with the snapshot it came from and with the
        // identity tables' keys (a squeeze would copy it).
        m_bytes += stringBytes(m_strings[id]);
        m_index.insert(id, hash, keyOf);
        return id;
    }
    void release(quint32 id)
    {
        if (id == 0 || --m_refs[id] > 0)
            return;
        auto keyOf = [this](quint32 i) -> const QString & {
            return m_strings[i];
        };
        m_index.remove(id, qHash(m_strings[id]), keyOf);
        m_bytes -= stringBytes(m_strings[id]);
        m_strings[id] = QString();
        m_free.push_back(id);
    }
    const QString &at(quint32 id) const { return m_strings[id]; }
    qint64 bytes() const { return m_bytes + dequeBytes(m_strings) + vectorBytes(m_refs) + vectorBytes(m_free) + m_index.bytes(); }
    qint64 count() const { return qint64(m_strings.size() - m_free.size()); }

private:
    std::deque<QString> m_strings; // a deque: growing it never moves megabytes at once
    std::vector<quint32> m_refs;
    std::vector<quint32> m_free;
    IdIndex m_index;
    qint64 m_bytes = 0;
};

// ---- Identities ---------------------------------------------------------------------------------

// Identity key -> handle, per kind. A handle is freed when no kept entry (nor the one before the
// oldest, whose versions the oldest entry's changes still hold) has its object; then reused.
class HandleTable
{
public:
    // Per handle: the key, the newest entry that had the object.
    std::deque<QString> keys;
    std::vector<qint64> lastSerial;
    bool compositeKeys = false; // keys are built ("ns/name"), not one of the object's own texts

    quint32 acquire(const QString &baseKey, qint64 serial)
    {
        QString key = baseKey;
        auto keyOf = [this](quint32 h) -> const QString & {
            return keys[h];
        };
        for (int n = 2;; ++n) {
            const size_t hash = qHash(key);
            const auto found = m_index.find(key, hash, keyOf);
            if (!found) {
                quint32 h;
                if (!m_free.empty()) {
                    h = m_free.back();
                    m_free.pop_back();
                } else {
                    h = quint32(keys.size());
                    keys.emplace_back();
                    lastSerial.push_back(-1);
                }
                keys[h] = key;
                lastSerial[h] = serial;
                m_index.insert(h, hash, keyOf);
                if (compositeKeys)
                    m_keyBytes += stringBytes(key);
                return h;
            }
            if (lastSerial[*found] != serial) {
                lastSerial[*found] = serial;
                return *found;
            }
            // The same identity twice in one list: the second is "<key>\x1f2", and so on.
            key = baseKey + QChar(0x1f) + QString::number(n);
        }
    }
    // Frees handles last seen before `serial`.
    void sweep(qint64 serial)
    {
        auto keyOf = [this](quint32 h) -> const QString & {
            return keys[h];
        };
        for (quint32 h = 0; h < quint32(keys.size()); ++h) {
            if (lastSerial[h] < 0 || lastSerial[h] >= serial)
                continue;
            m_index.remove(h, qHash(keys[h]), keyOf);
            if (compositeKeys)
                m_keyBytes -= stringBytes(keys[h]);
            keys[h] = QString();
            lastSerial[h] = -1;
            m_free.push_back(h);
        }
    }
    quint32 size() const { return quint32(keys.size()); }
    qint64 bytes() const { return m_keyBytes + dequeBytes(keys) + vectorBytes(lastSerial) + vectorBytes(m_free) + m_index.bytes(); }
    void clear()
    {
        keys = {};
        lastSerial = {};
        m_free = {};
        m_index.clear();
        m_keyBytes = 0;
    }

private:
    std::vector<quint32> m_free;
    IdIndex m_index;
    qint64 m_keyBytes = 0;
};

// ---- Kinds and reference maps -------------------------------------------------------------------

enum Kind
{
    RayNodes,
    Pods,
    KubeNodes,
    Slices,
    PlacementGroups,
    WorkerGroups,
    RayClusters,
    Jobs,
    KindCount
};

// Index -> handle, for one snapshot's lists.
struct HandleMaps {
    const std::vector<quint32> *of[KindCount] = {};
    int operator()(Kind kind, int index) const
    {
        if (index < 0)
            return index;
        const std::vector<quint32> &v = *of[kind];
        return index < int(v.size()) ? int(v[size_t(index)]) : std::numeric_limits<int>::min(); // a dangling index stays unequal
    }
};

// Handle -> index, for the snapshot being rebuilt; or handles as they are (events).
struct IndexMaps {
    std::vector<int> of[KindCount];
    bool identity = false;
    int operator()(Kind kind, int handle) const
    {
        if (handle < 0 || identity)
            return handle;
        const std::vector<int> &v = of[kind];
        return handle < int(v.size()) ? v[size_t(handle)] : -1;
    }
};

// ---- Versions -----------------------------------------------------------------------------------

// Where encoded versions live: blocks of 8-byte size classes carved from chunks (16 KiB at first,
// doubling to 256 KiB, so a small cluster's history stays small), with a free list per class. Versions live long and are freed in no particular order; keeping them
// apart from the heap the snapshots churn through (megabytes of small blocks every poll) keeps
// both compact, and saves malloc's per-block header and 16-byte rounding.
class Arena
{
public:
    static constexpr size_t kGranule = 8;
    static constexpr size_t kLargest = 1024; // bigger blocks come from the heap
    static constexpr size_t kFirstChunk = 16 * 1024;
    static constexpr size_t kChunk = 256 * 1024;

    Arena() = default;
    Arena(const Arena &) = delete;
    Arena &operator=(const Arena &) = delete;
    ~Arena()
    {
        for (const Chunk &c : m_chunks)
            ::operator delete(c.memory);
    }

    static size_t blockSize(size_t n) { return (n + kGranule - 1) / kGranule * kGranule; }

    void *allocate(size_t n)
    {
        n = blockSize(n);
        if (n > kLargest)
            return ::operator new(n);
        m_inUse += qint64(n);
        if (FreeBlock *&head = m_free[n / kGranule]) {
            FreeBlock *b = head;
            head = b->next;
            return b;
        }
        if (m_left < n) {
            const size_t size = m_chunks.empty() ? kFirstChunk : std::min(kChunk, m_chunks.back().size * 2);
            m_next = static_cast<char *>(::operator new(size));
            m_chunks.push_back({m_next, size});
            m_chunkBytes += qint64(size);
            m_left = size;
        }
        void *p = m_next;
        m_next += n;
        m_left -= n;
        return p;
    }
    void release(void *p, size_t n)
    {
        n = blockSize(n);
        if (n > kLargest) {
            ::operator delete(p);
            return;
        }
        m_inUse -= qint64(n);
        FreeBlock *b = static_cast<FreeBlock *>(p);
        b->next = m_free[n / kGranule];
        m_free[n / kGranule] = b;
    }
    // Gives the chunks back once no block is in use (after SnapshotHistory::clear()).
    void trim()
    {
        if (m_inUse != 0)
            return;
        for (const Chunk &c : m_chunks)
            ::operator delete(c.memory);
        m_chunks = {};
        m_chunkBytes = 0;
        std::fill(std::begin(m_free), std::end(m_free), nullptr);
        m_next = nullptr;
        m_left = 0;
    }
    // Chunk memory not holding a live block (free lists and the unused tail).
    qint64 slack() const { return m_chunkBytes - m_inUse + vectorBytes(m_chunks); }

private:
    struct FreeBlock {
        FreeBlock *next;
    };
    struct Chunk {
        void *memory;
        size_t size;
    };
    std::vector<Chunk> m_chunks;
    qint64 m_chunkBytes = 0;
    FreeBlock *m_free[kLargest / kGranule + 1] = {};
    char *m_next = nullptr;
    size_t m_left = 0;
    qint64 m_inUse = 0;
};

struct Account {
    qint64 bytes = 0;
    qint64 count = 0;
    qint64 plain = 0;             // versions kept as plain copies (the codec could not reproduce them)
    StringTable *strings = nullptr;
    Arena *arena = nullptr;
};

// One version: this header, then either its encoding (`size` bytes) or a plain T.
struct VersionHeader {
    static constexpr quint32 kPlain = 0xffffffffu;
    int refs = 0;
    quint32 handle = 0;
    quint32 size = 0;
    qint32 bytes = 0;             // this version's estimate, in account->bytes while it lives
    Account *account = nullptr;
    const uchar *data() const { return reinterpret_cast<const uchar *>(this + 1); }
    bool plain() const { return size == kPlain; }
};

template<typename T>
constexpr size_t plainOffset()
{
    return (sizeof(VersionHeader) + alignof(T) - 1) / alignof(T) * alignof(T);
}

template<typename T>
const T &plainValue(const VersionHeader *h)
{
    return *reinterpret_cast<const T *>(reinterpret_cast<const char *>(h) + plainOffset<T>());
}

template<typename T>
void releaseStrings(const VersionHeader *h);

// An intrusive reference to a version: 8 bytes, no control block.
template<typename T>
class Ref
{
public:
    Ref() = default;
    explicit Ref(VersionHeader *p)
        : m_p(p)
    {
        if (m_p) ++m_p->refs;
    }
    Ref(const Ref &other)
        : m_p(other.m_p)
    {
        if (m_p) ++m_p->refs;
    }
    Ref(Ref &&other) noexcept
        : m_p(std::exchange(other.m_p, nullptr))
    { }
    Ref &operator=(Ref other) noexcept
    {
        std::swap(m_p, other.m_p);
        return *this;
    }
    ~Ref()
    {
        if (m_p && --m_p->refs == 0)
            destroy(m_p);
    }
    const VersionHeader *get() const { return m_p; }
    const VersionHeader *operator->() const { return m_p; }
    explicit operator bool() const { return m_p != nullptr; }

private:
    static void destroy(VersionHeader *h)
    {
        h->account->bytes -= h->bytes;
        --h->account->count;
        if (h->plain()) {
            --h->account->plain;
            reinterpret_cast<T *>(reinterpret_cast<char *>(h) + plainOffset<T>())->~T();
            h->~VersionHeader();
            ::operator delete(h);
        } else {
            releaseStrings<T>(h);
            Arena *arena = h->account->arena;
            const size_t size = sizeof(VersionHeader) + h->size;
            h->~VersionHeader();
            arena->release(h, size);
        }
    }
    VersionHeader *m_p = nullptr;
};

// ---- The codec ----------------------------------------------------------------------------------
//
// One field list per kind (Codec<T>::fields) drives three archives: Writer encodes, Reader
// decodes, and Reader<Scan> only visits the texts (to release them).

void putVarint(std::vector<uchar> &out, quint64 v)
{
    while (v >= 0x80) {
        out.push_back(uchar(v | 0x80));
        v >>= 7;
    }
    out.push_back(uchar(v));
}

quint64 zigzag(qint64 v)
{
    return (quint64(v) << 1) ^ quint64(v >> 63);
}

qint64 unzigzag(quint64 v)
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
    quint64 varint()
    {
        quint64 v = 0;
        int shift = 0;
        while (m_p < m_end) {
            const uchar b = *m_p++;
            v |= quint64(b & 0x7f) << shift;
            if (!(b & 0x80))
                break;
            shift += 7;
        }
        return v;
    }

    const uchar *m_p;
    const uchar *m_end;
    StringTable &m_strings;
    const IndexMaps *m_maps;
};

template<typename T>
struct Codec;

// Each Codec<T> has:
//   key(v)           the identity within its list
//   fields(a, v)     every field, in order, through an archive (Writer, Reader, Reader<true>)
//   same(a, ma, b, mb)  equal once each side's indexes are mapped to handles
//   toHandles(v, m) / toIndexes(v, m)  the reference fields of a plain copy
// Comparisons copy the values, overwrite the reference fields and use the defaulted operator==,
// so a field added to snapshot.h later is still compared; the round-trip check in
// Private::encode() catches one the codec does not carry yet.

// The same(), toHandles() and toIndexes() of kinds whose objects point at no other object.
template<typename T>
struct NoReferences {
    static bool same(const T &a, const HandleMaps &, const T &b, const HandleMaps &) { return a == b; }
    static void toHandles(T &, const HandleMaps &) { }
    static void toIndexes(T &, const IndexMaps &) { }
};

template<>
struct Codec<RayNode> : NoReferences<RayNode> {
    static constexpr Kind kind = RayNodes;
    static QString key(const RayNode &n) { return n.id; }
    static bool sameKey(const RayNode &a, const RayNode &b) { return a.id == b.id; }
    template<typename A, typename V>
    static void fields(A &a, V &n)
    {
        a.text(n.id);
        a.text(n.ip);
        a.text(n.name);
        a.flag(n.isHead);
        a.flag(n.alive);
        a.text(n.stateMessage);
        a.number(n.tpu);
        a.number(n.cpu);
        a.flag(n.hasSliceHeadResource);
        a.text(n.sliceName);
        a.text(n.podType);
        a.text(n.topology);
        a.text(n.acceleratorType);
        a.text(n.nodeGroup);
        a.integer(n.workerId);
        a.integer(n.startTimeMs);
        a.integer(n.endTimeMs);
        a.texts(n.subslices);
        a.text(n.unrecognised);
    }
};

template<>
struct Codec<Pod> : NoReferences<Pod> {
    static constexpr Kind kind = Pods;
    static QString key(const Pod &p) { return p.qualifiedName(); }
    static bool sameKey(const Pod &a, const Pod &b) { return a.name == b.name && a.ns == b.ns; }
    template<typename A, typename V>
    static void fields(A &a, V &p)
    {
        a.text(p.ns);
        a.text(p.name);
        a.text(p.phase);
        a.flag(p.ready);
        a.flag(p.terminating);
        a.text(p.podIp);
        a.text(p.nodeName);
        a.text(p.cluster);
        a.text(p.group);
        a.flag(p.isHead);
        a.text(p.replicaKey);
        a.text(p.tpuName);
        a.integer(p.hostIndex);
        a.integer(p.tpuChips);
        a.text(p.accelerator);
        a.text(p.topology);
        a.text(p.reason);
        a.text(p.message);
        a.text(p.created);
        a.texts(p.megascale);
        a.text(p.unrecognised);
    }
};

template<>
struct Codec<KubeNode> : NoReferences<KubeNode> {
    static constexpr Kind kind = KubeNodes;
    static QString key(const KubeNode &n) { return n.name; }
    static bool sameKey(const KubeNode &a, const KubeNode &b) { return a.name == b.name; }
    template<typename A, typename V>
    static void fields(A &a, V &n)
    {
        a.text(n.name);
        a.text(n.accelerator);
        a.text(n.topology);
        a.text(n.nodePool);
        a.integer(n.tpuCapacity);
        a.flag(n.ready);
    }
};

template<>
struct Codec<Slice> {
    static constexpr Kind kind = Slices;
    static QString key(const Slice &s) { return s.name; }
    static bool sameKey(const Slice &a, const Slice &b) { return a.name == b.name; }
    template<typename A, typename V>
    static void fields(A &a, V &s)
    {
        a.text(s.name);
        a.generation(s.generation);
        a.topology(s.topology);
        a.text(s.podType);
        a.integer(s.chipsPerHost);
        a.layout(s.layout, s.generation, s.topology, s.chipsPerHost);
        a.enumeration(s.source);
        a.text(s.workerGroup);
        a.list(s.hosts, [&](auto &h) {
            a.integer(h.workerId);
            a.enumeration(h.state);
            a.reference(RayNodes, h.rayNode);
            a.reference(Pods, h.pod);
            a.reference(KubeNodes, h.kubeNode);
            a.integer(h.reportedChips);
            a.integer(h.unplacedReservedChips);
            a.list(h.chips, [&](auto &c) { a.reference(PlacementGroups, c.placementGroup); a.integer(c.bundleIndex); });
        });
        a.flag(s.intact);
        a.integer(s.reservedChips);
        a.reference(PlacementGroups, s.headHeldBy);
        a.texts(s.problems);
        a.text(s.unknownGeneration);
        a.text(s.rayName);
        a.integer(s.tpuPerChip);
        a.text(s.unrecognised);
    }
    static Host mapped(const Host &h, const HandleMaps &m)
    {
        Host x = h;
        x.rayNode = m(RayNodes, h.rayNode);
        x.pod = m(Pods, h.pod);
        x.kubeNode = m(KubeNodes, h.kubeNode);
        x.chips = {};
        return x;
    }
    static bool same(const Slice &a, const HandleMaps &ma, const Slice &b, const HandleMaps &mb)
    {
        if (a.hosts.size() != b.hosts.size() || ma(PlacementGroups, a.headHeldBy) != mb(PlacementGroups, b.headHeldBy))
            return false;
        for (qsizetype i = 0; i < a.hosts.size(); ++i) {
            const Host &ha = a.hosts[i], &hb = b.hosts[i];
            if (ha.chips.size() != hb.chips.size() || !(mapped(ha, ma) == mapped(hb, mb)))
                return false;
            for (qsizetype c = 0; c < ha.chips.size(); ++c) {
                ChipUse x = ha.chips[c], y = hb.chips[c];
                x.placementGroup = ma(PlacementGroups, x.placementGroup);
                y.placementGroup = mb(PlacementGroups, y.placementGroup);
                if (!(x == y))
                    return false;
            }
        }
        Slice x = a, y = b;
        x.hosts = {};
        y.hosts = {};
        x.headHeldBy = y.headHeldBy = 0;
        return x == y;
    }
    static void toHandles(Slice &s, const HandleMaps &m)
    {
        s.headHeldBy = m(PlacementGroups, s.headHeldBy);
        for (Host &h : s.hosts) {
            h.rayNode = m(RayNodes, h.rayNode);
            h.pod = m(Pods, h.pod);
            h.kubeNode = m(KubeNodes, h.kubeNode);
            for (ChipUse &c : h.chips)
                c.placementGroup = m(PlacementGroups, c.placementGroup);
        }
    }
    static void toIndexes(Slice &s, const IndexMaps &m)
    {
        s.headHeldBy = m(PlacementGroups, s.headHeldBy);
        for (Host &h : s.hosts) {
            h.rayNode = m(RayNodes, h.rayNode);
            h.pod = m(Pods, h.pod);
            h.kubeNode = m(KubeNodes, h.kubeNode);
            for (ChipUse &c : h.chips)
                c.placementGroup = m(PlacementGroups, c.placementGroup);
        }
    }
};

template<>
struct Codec<PlacementGroup> {
    static constexpr Kind kind = PlacementGroups;
    static QString key(const PlacementGroup &g) { return g.id; }
    static bool sameKey(const PlacementGroup &a, const PlacementGroup &b) { return a.id == b.id; }
    template<typename A, typename V>
    static void fields(A &a, V &g)
    {
        a.text(g.id);
        a.text(g.name);
        a.text(g.state);
        a.text(g.creatorJobId);
        a.text(g.schedulingState);
        a.flag(g.detached);
        a.enumeration(g.kind);
        a.list(g.bundles, [&](auto &b) {
            a.integer(b.index);
            a.text(b.nodeId);
            a.reference(RayNodes, b.rayNode);
            a.reference(Slices, b.slice);
            a.integer(b.workerId);
            a.integer(b.tpu);
            a.number(b.cpu);
            a.text(b.selectorSlice);
            a.text(b.headResource);
        });
        a.texts(g.slices);
        a.text(g.reservation);
        a.integer(g.reservationSize);
    }
    static Bundle mapped(const Bundle &b, const HandleMaps &m)
    {
        Bundle x = b;
        x.rayNode = m(RayNodes, b.rayNode);
        x.slice = m(Slices, b.slice);
        return x;
    }
    static bool same(const PlacementGroup &a, const HandleMaps &ma, const PlacementGroup &b, const HandleMaps &mb)
    {
        if (a.bundles.size() != b.bundles.size())
            return false;
        for (qsizetype i = 0; i < a.bundles.size(); ++i)
            if (!(mapped(a.bundles[i], ma) == mapped(b.bundles[i], mb)))
                return false;
        PlacementGroup x = a, y = b;
        x.bundles = {};
        y.bundles = {};
        return x == y;
    }
    static void toHandles(PlacementGroup &g, const HandleMaps &m)
    {
        for (Bundle &b : g.bundles) {
            b.rayNode = m(RayNodes, b.rayNode);
            b.slice = m(Slices, b.slice);
        }
    }
    static void toIndexes(PlacementGroup &g, const IndexMaps &m)
    {
        for (Bundle &b : g.bundles) {
            b.rayNode = m(RayNodes, b.rayNode);
            b.slice = m(Slices, b.slice);
        }
    }
};

template<>
struct Codec<WorkerGroup> : NoReferences<WorkerGroup> {
    static constexpr Kind kind = WorkerGroups;
    static QString key(const WorkerGroup &g) { return g.qualifiedName(); }
    static bool sameKey(const WorkerGroup &a, const WorkerGroup &b) { return a.group == b.group && a.cluster == b.cluster && a.ns == b.ns; }
    template<typename A, typename V>
    static void fields(A &a, V &g)
    {
        a.text(g.ns);
        a.text(g.cluster);
        a.text(g.group);
        a.integer(g.replicas);
        a.integer(g.minReplicas);
        a.integer(g.maxReplicas);
        a.integer(g.numOfHosts);
        a.text(g.accelerator);
        a.text(g.topology);
        a.integer(g.chipsPerHost);
        a.flag(g.autoscaling);
        a.flag(g.suspended);
        a.texts(g.workersToDelete);
        a.texts(g.slices);
        a.integer(g.specIndex);
        a.flag(g.replicasSet);
    }
};

template<>
struct Codec<RayClusterInfo> : NoReferences<RayClusterInfo> {
    static constexpr Kind kind = RayClusters;
    static QString key(const RayClusterInfo &c) { return c.ns + u'/' + c.name; }
    static bool sameKey(const RayClusterInfo &a, const RayClusterInfo &b) { return a.name == b.name && a.ns == b.ns; }
    template<typename A, typename V>
    static void fields(A &a, V &c)
    {
        a.text(c.ns);
        a.text(c.name);
        a.text(c.state);
        a.text(c.headServiceName);
        a.integer(c.generation);
        a.integer(c.observedGeneration);
        a.text(c.resourceVersion);
        a.flag(c.autoscaling);
    }
};

template<>
struct Codec<Job> : NoReferences<Job> {
    static constexpr Kind kind = Jobs;
    static QString key(const Job &j) { return !j.submissionId.isEmpty() ? j.submissionId : j.jobId; }
    static bool sameKey(const Job &a, const Job &b) { return key(a) == key(b); }
    template<typename A, typename V>
    static void fields(A &a, V &j)
    {
        a.text(j.submissionId);
        a.text(j.jobId);
        a.text(j.status);
        a.text(j.entrypoint);
        a.text(j.message);
        a.integer(j.startTimeMs);
        a.integer(j.endTimeMs);
    }
};

template<typename T>
void releaseStrings(const VersionHeader *h)
{
    Reader<true> r(h->data(), h->size, *h->account->strings, nullptr);
    T scratch;
    Codec<T>::fields(r, scratch);
}

// The value of a version, with references as `maps` says (indexes, or handles).
template<typename T>
T decode(const VersionHeader *h, const IndexMaps &maps)
{
    if (h->plain()) {
        T v = plainValue<T>(h);
        Codec<T>::toIndexes(v, maps);
        return v;
    }
    T v;
    Reader<false> r(h->data(), h->size, *h->account->strings, &maps);
    Codec<T>::fields(r, v);
    return v;
}

// The deep bytes of a plain copy (its texts and lists; shared ones counted as if they were not).
qint64 deepBytes(const RayNode &n)
{
    return stringBytes(n.id) + stringBytes(n.ip) + stringBytes(n.name) + stringBytes(n.stateMessage) + stringBytes(n.sliceName)
           + stringBytes(n.podType) + stringBytes(n.topology) + stringBytes(n.acceleratorType) + stringBytes(n.nodeGroup);
}
qint64 deepBytes(const Pod &p)
{
    return stringBytes(p.ns) + stringBytes(p.name) + stringBytes(p.phase) + stringBytes(p.podIp) + stringBytes(p.nodeName)
           + stringBytes(p.cluster) + stringBytes(p.group) + stringBytes(p.replicaKey) + stringBytes(p.tpuName)
           + stringBytes(p.accelerator) + stringBytes(p.topology);
}
qint64 deepBytes(const KubeNode &n)
{
    return stringBytes(n.name) + stringBytes(n.accelerator) + stringBytes(n.topology) + stringBytes(n.nodePool);
}
qint64 deepBytes(const QStringList &l)
{
    qint64 b = arrayBytes(l);
    for (const QString &s : l)
        b += stringBytes(s);
    return b;
}
qint64 deepBytes(const Slice &s)
{
    qint64 b = stringBytes(s.name) + stringBytes(s.podType) + stringBytes(s.workerGroup) + arrayBytes(s.hosts) + deepBytes(s.problems);
    for (const Host &h : s.hosts)
        b += arrayBytes(h.chips);
    return b;
}
qint64 deepBytes(const PlacementGroup &g)
{
    qint64 b = stringBytes(g.id) + stringBytes(g.name) + stringBytes(g.state) + stringBytes(g.creatorJobId)
               + stringBytes(g.schedulingState) + arrayBytes(g.bundles) + deepBytes(g.slices);
    for (const Bundle &x : g.bundles)
        b += stringBytes(x.nodeId) + stringBytes(x.selectorSlice) + stringBytes(x.headResource);
    return b;
}
qint64 deepBytes(const WorkerGroup &g)
{
    return stringBytes(g.ns) + stringBytes(g.cluster) + stringBytes(g.group) + stringBytes(g.accelerator) + stringBytes(g.topology)
           + deepBytes(g.workersToDelete) + deepBytes(g.slices);
}
qint64 deepBytes(const RayClusterInfo &c)
{
    return stringBytes(c.ns) + stringBytes(c.name) + stringBytes(c.state) + stringBytes(c.headServiceName) + stringBytes(c.resourceVersion);
}
qint64 deepBytes(const Job &j)
{
    return stringBytes(j.submissionId) + stringBytes(j.jobId) + stringBytes(j.status) + stringBytes(j.entrypoint) + stringBytes(j.message);
}

// ---- Entries ------------------------------------------------------------------------------------

// How an entry's list is rebuilt from the previous entry's: triples of varints (skip n old
// items, copy n old items, take the next n changed versions). Empty: the list did not change.
using Ops = std::vector<uchar>;

// A fixed array: a pointer and a count, no spare capacity (entries are many; most arrays tiny).
template<typename V>
class Packed
{
public:
    Packed() = default;
    explicit Packed(std::vector<V> &&v)
        : m_size(quint32(v.size()))
    {
        if (m_size) {
            m_data.reset(new V[m_size]);
            std::move(v.begin(), v.end(), m_data.get());
        }
        v = {};
    }
    const V *begin() const { return m_data.get(); }
    const V *end() const { return m_data.get() + m_size; }
    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    const V &operator[](size_t i) const { return m_data[i]; }
    // new[] of a type with a destructor keeps the count in front of the array.
    qint64 bytes() const
    {
        return m_size ? heapBlock(qint64(m_size * sizeof(V)) + (std::is_trivially_destructible_v<V> ? 0 : 8)) : 0;
    }

private:
    std::unique_ptr<V[]> m_data;
    quint32 m_size = 0;
};

template<typename T>
struct Delta {
    Packed<Ref<T>> added;              // versions new here (changed or appeared), in the list's order
    Packed<uchar> ops;                 // unless a keyframe
    struct Rare {
        std::vector<Ref<T>> keyframe;  // the whole list, in keyframe entries
        Packed<quint32> gone;          // handles of the objects no longer listed, in the old order
    };
    std::unique_ptr<Rare> rare;        // only when there is a keyframe or something went

    const std::vector<Ref<T>> &keyframe() const
    {
        static const std::vector<Ref<T>> none;
        return rare ? rare->keyframe : none;
    }
    const Packed<quint32> &gone() const
    {
        static const Packed<quint32> none;
        return rare ? rare->gone : none;
    }
    Rare &rareData()
    {
        if (!rare)
            rare = std::make_unique<Rare>();
        return *rare;
    }
    qint64 keyframeBytes() const { return rare ? vectorBytes(rare->keyframe) : 0; }
    qint64 deltaBytes() const { return added.bytes() + ops.bytes() + (rare ? heapBlock(sizeof(Rare)) + rare->gone.bytes() : 0); }
    size_t changeCount() const { return added.size() + gone().size(); }
};

class OpsWriter
{
public:
    explicit OpsWriter(Ops &ops)
        : m_ops(ops)
    { }
    // The next item of the new list is old item `oldIndex`, unchanged; false if it moved back.
    bool copy(int oldIndex)
    {
        if (oldIndex < m_oldPos)
            return false;
        if (oldIndex > m_oldPos || m_take > 0) {
            if (m_copy > 0 || m_take > 0)
                flush();
            m_skip = oldIndex - m_oldPos;
        }
        ++m_copy;
        m_oldPos = oldIndex + 1;
        return true;
    }
    // The next item of the new list is the next changed version.
    void take() { ++m_take; }
    // `oldSize`: the previous list's length. Leaves no operations if the list is unchanged.
    void finish(int oldSize)
    {
        const bool unchanged = m_ops.empty() && m_skip == 0 && m_take == 0 && m_copy == oldSize;
        if (m_oldPos < oldSize && !m_take && !m_copy && !m_skip && m_ops.empty())
            m_skip = oldSize; // everything went
        if (!unchanged && (m_skip || m_copy || m_take))
            flush();
    }

private:
    void flush()
    {
        putVarint(m_ops, quint64(m_skip));
        putVarint(m_ops, quint64(m_copy));
        putVarint(m_ops, quint64(m_take));
        m_skip = m_copy = m_take = 0;
    }
    Ops &m_ops;
    int m_oldPos = 0;
    int m_skip = 0, m_copy = 0, m_take = 0;
};

// Calls copy(first, count) and take(count) as the operations say.
template<typename Copy, typename Take>
void replayOps(const Packed<uchar> &ops, Copy &&copy, Take &&take)
{
    const uchar *p = ops.begin(), *end = ops.end();
    auto next = [&]() {
        quint64 v = 0;
        int shift = 0;
        while (p < end) {
            const uchar b = *p++;
            v |= quint64(b & 0x7f) << shift;
            if (!(b & 0x80))
                break;
            shift += 7;
        }
        return int(v);
    };
    int oldPos = 0, changed = 0;
    while (p < end) {
        const int skip = next(), n = next(), t = next();
        oldPos += skip;
        if (n)
            copy(oldPos, n);
        oldPos += n;
        if (t)
            take(changed, t);
        changed += t;
    }
}

// A snapshot's own texts; entries share one while they do not change.
struct Top {
    QString rayVersion;
    QString kubeContext;
    QString clusterStatusText;
    bool hasRay = false;
    bool hasKubernetes = false;
    QStringList errors;
    QStringList warnings;
};

// An entry's HistoryPoint as a few varints; decoded when asked for. Names of worker groups are
// shared with the previous entry's list while the groups stay the same.
struct PackedPoint {
    std::vector<uchar> data;
    QStringList workerGroupNames;
    QString oldestPendingId;
    std::unique_ptr<HistoryPoint> plain; // if packing would lose something (a type in fleetstats.h grew)

    template<typename A, typename C>
    static void counts(A &a, C &c)
    {
        a.integer(c.slices);
        a.integer(c.ready);
        a.integer(c.fullyReserved);
        a.integer(c.partlyUsed);
        a.integer(c.claimed);
        a.integer(c.degraded);
        a.integer(c.provisioning);
        a.integer(c.chips);
        a.integer(c.reservedChips);
        a.integer(c.freeChips);
        a.integer(c.availableChips);
        a.integer(c.claimedChips);
        a.integer(c.strandedChips);
        a.integer(c.strandedPartlyUsed);
        a.integer(c.strandedDegraded);
        a.integer(c.strandedProvisioning);
    }
    template<typename A, typename P>
    static void fields(A &a, P &p)
    {
        counts(a, p.fleet);
        a.list(p.generations, [&](auto &g) {
            a.generation(g.generation);
            counts(a, g.counts);
        });
        a.integer(p.placementGroups.pending);
        a.integer(p.placementGroups.prepared);
        a.integer(p.placementGroups.created);
        a.integer(p.placementGroups.rescheduling);
        a.integer(p.placementGroups.other);
        a.integer(p.placementGroups.oldestPendingMs);
        a.list(p.workerGroups, [&](auto &w) {
            a.integer(w.desired);
            a.integer(w.minReplicas);
            a.integer(w.maxReplicas);
            a.integer(w.slices);
            a.integer(w.ready);
        });
    }
};

struct Entry {
    qint64 serial = 0;
    bool keyframe = false;
    QDateTime capturedAt;
    std::shared_ptr<const Top> top;
    PackedPoint point;
    Delta<RayNode> rayNodes;
    Delta<Pod> pods;
    Delta<KubeNode> kubeNodes;
    Delta<Slice> slices;
    Delta<PlacementGroup> placementGroups;
    Delta<WorkerGroup> workerGroups;
    Delta<RayClusterInfo> rayClusters;
    Delta<Job> jobs;
    qint64 textBytes = 0;      // top-level texts and the point's lists, where this entry holds them first

    qint64 keyframeBytes() const
    {
        return rayNodes.keyframeBytes() + pods.keyframeBytes() + kubeNodes.keyframeBytes() + slices.keyframeBytes()
               + placementGroups.keyframeBytes() + workerGroups.keyframeBytes() + rayClusters.keyframeBytes() + jobs.keyframeBytes();
    }
    qint64 deltaBytes() const
    {
        return rayNodes.deltaBytes() + pods.deltaBytes() + kubeNodes.deltaBytes() + slices.deltaBytes()
               + placementGroups.deltaBytes() + workerGroups.deltaBytes() + rayClusters.deltaBytes() + jobs.deltaBytes();
    }
    qint64 ownBytes() const { return qint64(sizeof(Entry)) + textBytes; }
};

constexpr int kKeyframeEvery = 128;

// Per kind: the identities, the newest entry's versions (aligned with the newest snapshot's
// list) and where each handle sits in it.
template<typename T>
struct Column {
    static constexpr Kind kind = Codec<T>::kind;
    Account account;             // first: outlives every Ref below
    HandleTable ids;
    std::vector<Ref<T>> head;
    std::vector<int> headIndex;  // by handle: position in head (and in the newest snapshot's list), or -1
    std::vector<quint32> headHandles; // by position: the handle

    qint64 bytes() const { return ids.bytes() + vectorBytes(head) + vectorBytes(headIndex) + vectorBytes(headHandles); }
};

QString shortId(const QString &id)
{
    return id.left(12);
}

QString placementGroupLabel(const PlacementGroup &g)
{
    return g.name.isEmpty() ? shortId(g.id) : g.name + QStringLiteral(" (") + shortId(g.id) + u')';
}

QString sliceStatusText(const Slice &s)
{
    switch (s.status()) {
    case SliceStatus::Ready: return QStringLiteral("ready");
    case SliceStatus::Reserved:
        if (s.reservedChips == 0)
            return QStringLiteral("reserved (head claimed)");
        return QStringLiteral("reserved (%1 of %2 chips held)").arg(s.reservedChips).arg(sliceChips(s));
    case SliceStatus::Degraded:
        return s.problems.isEmpty() ? QStringLiteral("degraded") : QStringLiteral("degraded: ") + s.problems.join(QStringLiteral("; "));
    case SliceStatus::Provisioning:
        return s.problems.isEmpty() ? QStringLiteral("provisioning") : QStringLiteral("provisioning: ") + s.problems.join(QStringLiteral("; "));
    }
    Q_UNREACHABLE();
}

} // namespace

// ---- SnapshotHistory ------------------------------------------------------------------------------

struct SnapshotHistory::Private {
    HistoryPolicy policy;
    Arena arena;                // before the columns: versions return their memory to it
    StringTable strings;        // and release their texts into this
    // Columns before entries: entries are destroyed first, then the versions' accounts.
    Column<RayNode> rayNodes;
    Column<Pod> pods;
    Column<KubeNode> kubeNodes;
    Column<Slice> slices;
    Column<PlacementGroup> placementGroups;
    Column<WorkerGroup> workerGroups;
    Column<RayClusterInfo> rayClusters;
    Column<Job> jobs;
    std::deque<Entry> entries;
    SnapshotPtr latest;         // the newest snapshot, as added (head is aligned with its lists)
    qint64 nextSerial = 0;
    int sinceKeyframe = 0;
    qint64 entryBytes = 0;      // sum of the entries' ownBytes()
    qint64 keyframeBytes = 0;
    qint64 deltaBytes = 0;
    qint64 lastSweepSerial = 0;
    std::vector<uchar> scratch; // the encoder's buffer
    // Per placement-group handle: when it was first seen PENDING (ms since epoch), or -1.
    std::vector<qint64> pendingSince;
    // The last rebuilt snapshot, while somebody holds it.
    mutable std::weak_ptr<const ClusterSnapshot> cached;
    mutable qint64 cachedSerial = -1;

    Private()
    {
        forEachColumn([this](auto &c, auto) {
            c.account.strings = &strings;
            c.account.arena = &arena;
        });
        pods.ids.compositeKeys = workerGroups.ids.compositeKeys = rayClusters.ids.compositeKeys = true;
    }

    template<typename F>
    void forEachColumn(F &&f)
    {
        f(rayNodes, &Entry::rayNodes);
        f(pods, &Entry::pods);
        f(kubeNodes, &Entry::kubeNodes);
        f(slices, &Entry::slices);
        f(placementGroups, &Entry::placementGroups);
        f(workerGroups, &Entry::workerGroups);
        f(rayClusters, &Entry::rayClusters);
        f(jobs, &Entry::jobs);
    }
    template<typename F>
    void forEachColumn(F &&f) const
    {
        f(rayNodes, &Entry::rayNodes);
        f(pods, &Entry::pods);
        f(kubeNodes, &Entry::kubeNodes);
        f(slices, &Entry::slices);
        f(placementGroups, &Entry::placementGroups);
        f(workerGroups, &Entry::workerGroups);
        f(rayClusters, &Entry::rayClusters);
        f(jobs, &Entry::jobs);
    }

    qint64 identityBytes() const
    {
        qint64 b = vectorBytes(pendingSince);
        forEachColumn([&](const auto &c, auto) { b += c.bytes(); });
        return b;
    }
    qint64 objectBytes() const
    {
        qint64 b = 0;
        forEachColumn([&](const auto &c, auto) { b += c.account.bytes; });
        return b;
    }
    // Everything but the arena's free room (which eviction cannot shrink: freed versions' blocks
    // wait there for new ones, and it never exceeds what was once in use).
    qint64 bytesHeld() const
    {
        return objectBytes() + strings.bytes() + identityBytes() + entryBytes + keyframeBytes + deltaBytes;
    }

    // The handle of every item of a new list. Lists mostly keep their order, so the previous
    // list is walked alongside and only items out of step are looked up by key.
    template<typename T>
    std::vector<quint32> acquireHandles(Column<T> &c, const QList<T> *previous, const std::vector<quint32> &previousHandles,
                                        const QList<T> &list, qint64 serial)
    {
        std::vector<quint32> handles(size_t(list.size()));
        const qsizetype n = previous ? previous->size() : 0;
        qsizetype j = 0;
        for (qsizetype i = 0; i < list.size(); ++i) {
            const T &item = list[i];
            quint32 h = 0;
            bool found = false;
            for (qsizetype k = j; k < std::min(j + 2, n) && !found; ++k) {
                if (Codec<T>::sameKey(item, (*previous)[k]) && c.ids.lastSerial[previousHandles[size_t(k)]] != serial) {
                    h = previousHandles[size_t(k)];
                    c.ids.lastSerial[h] = serial;
                    j = k + 1;
                    found = true;
                }
            }
            if (!found) {
                h = c.ids.acquire(Codec<T>::key(item), serial);
                if (h < c.headIndex.size() && c.headIndex[h] >= 0)
                    j = c.headIndex[h] + 1;
            }
            handles[size_t(i)] = h;
        }
        if (c.headIndex.size() < c.ids.size())
            c.headIndex.resize(c.ids.size(), -1);
        return handles;
    }

    // A new version of `value`: encoded, checked by decoding it back, else a plain copy.
    template<typename T>
    Ref<T> encode(Column<T> &c, const T &value, quint32 handle, const HandleMaps &handles, const IndexMaps &indexes)
    {
        scratch.clear();
        Writer w(scratch, strings, handles);
        Codec<T>::fields(w, value);
        VersionHeader *h = nullptr;
        if (w.ok && scratch.size() < VersionHeader::kPlain) {
            void *mem = arena.allocate(sizeof(VersionHeader) + scratch.size());
            h = new (mem) VersionHeader;
            h->size = quint32(scratch.size());
            std::memcpy(const_cast<uchar *>(h->data()), scratch.data(), scratch.size());
            h->account = &c.account;
            if (decode<T>(h, indexes) == value) {
                h->bytes = qint32(Arena::blockSize(sizeof(VersionHeader) + scratch.size()));
            } else {
                releaseStrings<T>(h);
                h->~VersionHeader();
                arena.release(mem, sizeof(VersionHeader) + scratch.size());
                h = nullptr;
            }
        } else {
            Reader<true> release(scratch.data(), quint32(scratch.size()), strings, nullptr);
            T ignored;
            Codec<T>::fields(release, ignored);
        }
        if (!h) {
            // The codec does not carry this value exactly (a field it does not know yet): keep a copy.
            void *mem = ::operator new(plainOffset<T>() + sizeof(T));
            h = new (mem) VersionHeader;
            h->size = VersionHeader::kPlain;
            T *v = new (static_cast<char *>(mem) + plainOffset<T>()) T(value);
            Codec<T>::toHandles(*v, handles);
            h->account = &c.account;
            h->bytes = qint32(std::min<qint64>(heapBlock(qint64(plainOffset<T>() + sizeof(T))) + deepBytes(*v),
                                               std::numeric_limits<qint32>::max()));
            ++c.account.plain;
        }
        h->handle = handle;
        c.account.bytes += h->bytes;
        ++c.account.count;
        return Ref<T>(h);
    }

    // Matches a new list against the newest entry's by identity; fills the entry's changes and
    // list operations and moves the head on. Returns false if the list was reordered (the entry
    // must then be a keyframe).
    template<typename T>
    bool diff(Column<T> &c, const QList<T> *previous, const QList<T> &list, const std::vector<quint32> &handles,
              const HandleMaps &newMaps, const HandleMaps &oldMaps, const IndexMaps &newIndexes, Delta<T> &d)
    {
        std::vector<Ref<T>> next, added;
        next.reserve(size_t(list.size()));
        std::vector<char> kept(c.head.size(), 0);
        Ops opsBytes;
        OpsWriter ops(opsBytes);
        bool inOrder = true;
        for (qsizetype i = 0; i < list.size(); ++i) {
            const quint32 h = handles[size_t(i)];
            const int oldIndex = c.headIndex[h];
            if (oldIndex >= 0) {
                kept[size_t(oldIndex)] = 1;
                if (Codec<T>::same(list[i], newMaps, (*previous)[oldIndex], oldMaps)) {
                    // Moved, not copied: an unchanged version's header (somewhere in the hour's
                    // memory) is then not touched at all, so add() costs the same however long
                    // the history is. Each old index is kept at most once (identities are unique).
                    next.push_back(std::move(c.head[size_t(oldIndex)]));
                    inOrder = ops.copy(oldIndex) && inOrder;
                    continue;
                }
            }
            Ref<T> version = encode(c, list[i], h, newMaps, newIndexes);
            ops.take();
            added.push_back(version);
            next.push_back(std::move(version));
        }
        ops.finish(int(c.head.size()));
        d.ops = Packed<uchar>(std::move(opsBytes));
        d.added = Packed<Ref<T>>(std::move(added));
        const std::vector<quint32> &oldHandles = *oldMaps.of[Codec<T>::kind];
        std::vector<quint32> gone;
        for (size_t j = 0; j < c.head.size(); ++j)
            if (!kept[j])
                gone.push_back(oldHandles[j]);
        if (!gone.empty())
            d.rareData().gone = Packed<quint32>(std::move(gone));
        for (quint32 h : *oldMaps.of[Codec<T>::kind])
            c.headIndex[h] = -1;
        for (size_t i = 0; i < handles.size(); ++i)
            c.headIndex[handles[i]] = int(i);
        c.headHandles = handles;
        c.head = std::move(next);
        return inOrder;
    }

    std::shared_ptr<const Top> makeTop(const ClusterSnapshot &s, qint64 &bytes) const
    {
        const Top *prev = entries.empty() ? nullptr : entries.back().top.get();
        if (prev && prev->rayVersion == s.rayVersion && prev->kubeContext == s.kubeContext
            && prev->clusterStatusText == s.clusterStatusText && prev->hasRay == s.hasRay && prev->hasKubernetes == s.hasKubernetes
            && prev->errors == s.errors && prev->warnings == s.warnings)
            return entries.back().top;
        Top t;
        t.rayVersion = s.rayVersion;
        t.kubeContext = s.kubeContext;
        t.clusterStatusText = s.clusterStatusText;
        t.hasRay = s.hasRay;
        t.hasKubernetes = s.hasKubernetes;
        t.errors = s.errors;
        t.warnings = s.warnings;
        bytes += heapBlock(sizeof(Top) + 16);
        auto keep = [&](QString &x, const QString *old) {
            if (old && x == *old)
                x = *old;
            else
                bytes += stringBytes(x);
        };
        auto keepList = [&](QStringList &x, const QStringList *old) {
            if (old && x == *old) {
                x = *old;
                return;
            }
            bytes += arrayBytes(x);
            QHash<QString, int> previous;
            if (old)
                for (int i = 0; i < old->size(); ++i)
                    previous.insert(old->at(i), i);
            for (QString &w : x) {
                const auto it = previous.constFind(w);
                if (it != previous.constEnd())
                    w = old->at(*it);
                else
                    bytes += stringBytes(w);
            }
        };
        keep(t.rayVersion, prev ? &prev->rayVersion : nullptr);
        keep(t.kubeContext, prev ? &prev->kubeContext : nullptr);
        keep(t.clusterStatusText, prev ? &prev->clusterStatusText : nullptr);
        keepList(t.errors, prev ? &prev->errors : nullptr);
        keepList(t.warnings, prev ? &prev->warnings : nullptr);
        return std::make_shared<const Top>(std::move(t));
    }

    // The aggregates of one snapshot, sharing lists with the previous point where they are equal.
    HistoryPoint makePoint(const ClusterSnapshot &s, qint64 serial, const std::vector<quint32> &groupHandles,
                           const std::vector<quint32> &workerGroupHandles, qint64 &bytes)
    {
        HistoryPoint p;
        p.serial = serial;
        p.time = s.capturedAt;
        const FleetStats stats = fleetStats(s);
        p.fleet = stats.total;
        p.generations = stats.generations;

        PlacementGroupCounts &g = p.placementGroups;
        const qint64 now = s.capturedAt.toMSecsSinceEpoch();
        if (pendingSince.size() < placementGroups.ids.size())
            pendingSince.resize(placementGroups.ids.size(), -1);
        qint64 oldest = -1;
        quint32 oldestHandle = 0;
        for (qsizetype i = 0; i < s.placementGroups.size(); ++i) {
            const PlacementGroup &pg = s.placementGroups[i];
            const quint32 h = groupHandles[size_t(i)];
            if (pg.state == QLatin1String("PENDING")) {
                ++g.pending;
                if (pendingSince[h] < 0)
                    pendingSince[h] = now;
                if (oldest < 0 || pendingSince[h] < oldest) {
                    oldest = pendingSince[h];
                    oldestHandle = h;
                }
                continue;
            }
            pendingSince[h] = -1;
            if (pg.state == QLatin1String("CREATED")) ++g.created;
            else if (pg.state == QLatin1String("PREPARED")) ++g.prepared;
            else if (pg.state == QLatin1String("RESCHEDULING")) ++g.rescheduling;
            else ++g.other;
        }
        if (oldest >= 0) {
            g.oldestPendingMs = now - oldest;
            g.oldestPendingId = placementGroups.ids.keys[oldestHandle]; // shares the identity's text
        }

        if (!s.workerGroups.isEmpty()) {
            QHash<QString, std::pair<int, int>> sliceCounts; // group -> (slices, intact ones)
            for (const Slice &sl : s.slices) {
                if (sl.workerGroup.isEmpty())
                    continue;
                auto &counts = sliceCounts[sl.workerGroup];
                ++counts.first;
                counts.second += sl.intact;
            }
            p.workerGroups.reserve(s.workerGroups.size());
            for (qsizetype i = 0; i < s.workerGroups.size(); ++i) {
                const WorkerGroup &wg = s.workerGroups[i];
                WorkerGroupPoint w;
                w.qualifiedName = workerGroups.ids.keys[workerGroupHandles[size_t(i)]];
                w.desired = wg.replicas;
                w.minReplicas = wg.minReplicas;
                w.maxReplicas = wg.maxReplicas;
                const auto counts = sliceCounts.value(w.qualifiedName);
                w.slices = counts.first;
                w.ready = counts.second;
                p.workerGroups.append(std::move(w));
            }
        }

        Q_UNUSED(bytes);
        return p;
    }

    // Packs a point (checking that it unpacks to the same), sharing the worker group names with
    // the previous entry's when they are the same.
    PackedPoint pack(const HistoryPoint &p, qint64 &bytes)
    {
        PackedPoint packed;
        HandleMaps none;
        Writer w(packed.data, strings, none);
        PackedPoint::fields(w, p);
        packed.data.shrink_to_fit();
        bytes += vectorBytes(packed.data);
        for (const WorkerGroupPoint &g : p.workerGroups)
            packed.workerGroupNames << g.qualifiedName;
        const PackedPoint *prev = entries.empty() ? nullptr : &entries.back().point;
        if (prev && packed.workerGroupNames == prev->workerGroupNames)
            packed.workerGroupNames = prev->workerGroupNames;
        else
            bytes += arrayBytes(packed.workerGroupNames);
        packed.oldestPendingId = p.placementGroups.oldestPendingId;
        if (!w.ok || unpack(packed, p.serial, p.time) != p) {
            packed.data = {};
            packed.plain = std::make_unique<HistoryPoint>(p);
            bytes += qint64(sizeof(HistoryPoint)) + arrayBytes(p.generations) + arrayBytes(p.workerGroups);
        }
        return packed;
    }

    HistoryPoint unpack(const PackedPoint &packed, qint64 serial, const QDateTime &time) const
    {
        if (packed.plain)
            return *packed.plain;
        HistoryPoint p;
        p.serial = serial;
        p.time = time;
        IndexMaps none;
        Reader<false> r(packed.data.data(), quint32(packed.data.size()), const_cast<StringTable &>(strings), &none);
        PackedPoint::fields(r, p);
        for (GenerationStats &g : p.generations)
            g.label = g.generation ? g.generation->name : QStringLiteral("unknown");
        for (qsizetype i = 0; i < p.workerGroups.size() && i < packed.workerGroupNames.size(); ++i)
            p.workerGroups[i].qualifiedName = packed.workerGroupNames[i];
        p.placementGroups.oldestPendingId = packed.oldestPendingId;
        return p;
    }

    qint64 add(const SnapshotPtr &snapshot)
    {
        const ClusterSnapshot &s = *snapshot;
        const ClusterSnapshot *prev = latest.get();
        const qint64 serial = nextSerial++;

        // The previous snapshot's index -> handle maps (taken from the heads, which diff() moves
        // on), then the new one's.
        std::vector<quint32> oldHandles[KindCount];
        HandleMaps oldMaps;
        forEachColumn([&](auto &c, auto) {
            const Kind kind = std::remove_reference_t<decltype(c)>::kind;
            oldHandles[kind] = std::move(c.headHandles);
            c.headHandles = {};
            oldMaps.of[kind] = &oldHandles[kind];
        });
        const auto hRay = acquireHandles(rayNodes, prev ? &prev->rayNodes : nullptr, oldHandles[Column<RayNode>::kind], s.rayNodes, serial);
        const auto hPods = acquireHandles(pods, prev ? &prev->pods : nullptr, oldHandles[Column<Pod>::kind], s.pods, serial);
        const auto hKube = acquireHandles(kubeNodes, prev ? &prev->kubeNodes : nullptr, oldHandles[Column<KubeNode>::kind], s.kubeNodes, serial);
        const auto hSlices = acquireHandles(slices, prev ? &prev->slices : nullptr, oldHandles[Column<Slice>::kind], s.slices, serial);
        const auto hGroups = acquireHandles(placementGroups, prev ? &prev->placementGroups : nullptr, oldHandles[Column<PlacementGroup>::kind], s.placementGroups, serial);
        const auto hWorkerGroups = acquireHandles(workerGroups, prev ? &prev->workerGroups : nullptr, oldHandles[Column<WorkerGroup>::kind], s.workerGroups, serial);
        const auto hClusters = acquireHandles(rayClusters, prev ? &prev->rayClusters : nullptr, oldHandles[Column<RayClusterInfo>::kind], s.rayClusters, serial);
        const auto hJobs = acquireHandles(jobs, prev ? &prev->jobs : nullptr, oldHandles[Column<Job>::kind], s.jobs, serial);
        HandleMaps newMaps;
        newMaps.of[RayNodes] = &hRay;
        newMaps.of[Pods] = &hPods;
        newMaps.of[KubeNodes] = &hKube;
        newMaps.of[Slices] = &hSlices;
        newMaps.of[PlacementGroups] = &hGroups;
        // Handle -> new index, to check encodings by decoding them.
        IndexMaps newIndexes;
        auto invert = [&](Kind kind, const std::vector<quint32> &handles, quint32 size) {
            std::vector<int> &m = newIndexes.of[kind];
            m.assign(size, -1);
            for (size_t i = 0; i < handles.size(); ++i)
                m[handles[i]] = int(i);
        };
        invert(RayNodes, hRay, rayNodes.ids.size());
        invert(Pods, hPods, pods.ids.size());
        invert(KubeNodes, hKube, kubeNodes.ids.size());
        invert(Slices, hSlices, slices.ids.size());
        invert(PlacementGroups, hGroups, placementGroups.ids.size());

        Entry e;
        e.serial = serial;
        bool inOrder = true;
        inOrder = diff(rayNodes, prev ? &prev->rayNodes : nullptr, s.rayNodes, hRay, newMaps, oldMaps, newIndexes, e.rayNodes) && inOrder;
        inOrder = diff(pods, prev ? &prev->pods : nullptr, s.pods, hPods, newMaps, oldMaps, newIndexes, e.pods) && inOrder;
        inOrder = diff(kubeNodes, prev ? &prev->kubeNodes : nullptr, s.kubeNodes, hKube, newMaps, oldMaps, newIndexes, e.kubeNodes) && inOrder;
        inOrder = diff(slices, prev ? &prev->slices : nullptr, s.slices, hSlices, newMaps, oldMaps, newIndexes, e.slices) && inOrder;
        inOrder = diff(placementGroups, prev ? &prev->placementGroups : nullptr, s.placementGroups, hGroups, newMaps, oldMaps,
                       newIndexes, e.placementGroups)
                  && inOrder;
        inOrder = diff(workerGroups, prev ? &prev->workerGroups : nullptr, s.workerGroups, hWorkerGroups, newMaps, oldMaps,
                       newIndexes, e.workerGroups)
                  && inOrder;
        inOrder = diff(rayClusters, prev ? &prev->rayClusters : nullptr, s.rayClusters, hClusters, newMaps, oldMaps, newIndexes,
                       e.rayClusters)
                  && inOrder;
        inOrder = diff(jobs, prev ? &prev->jobs : nullptr, s.jobs, hJobs, newMaps, oldMaps, newIndexes, e.jobs) && inOrder;

        // A keyframe every kKeyframeEvery entries, when a list was reordered, or when the
        // operations are no longer much smaller than a keyframe would be.
        qint64 objects = 0, opsBytes = 0;
        forEachColumn([&](const auto &c, auto member) {
            objects += qint64(c.head.size());
            opsBytes += qint64((e.*member).ops.size());
        });
        e.keyframe = entries.empty() || !inOrder || sinceKeyframe + 1 >= kKeyframeEvery || opsBytes > objects * 2;
        if (e.keyframe) {
            forEachColumn([&](auto &c, auto member) {
                if (!c.head.empty())
                    (e.*member).rareData().keyframe = c.head;
                (e.*member).ops = {};
            });
            sinceKeyframe = 0;
        } else {
            ++sinceKeyframe;
        }

        for (quint32 h : e.placementGroups.gone())
            if (h < pendingSince.size())
                pendingSince[h] = -1;
        e.capturedAt = s.capturedAt;
        e.top = makeTop(s, e.textBytes);
        e.point = pack(makePoint(s, serial, hGroups, hWorkerGroups, e.textBytes), e.textBytes);
        entryBytes += e.ownBytes();
        keyframeBytes += e.keyframeBytes();
        deltaBytes += e.deltaBytes();
        entries.push_back(std::move(e));
        latest = snapshot;
        return serial;
    }

    // Drops the oldest entry; the next one becomes a keyframe if it was not.
    void popFront()
    {
        Q_ASSERT(!entries.empty() && entries.front().keyframe);
        Entry &front = entries.front();
        if (entries.size() > 1 && !entries[1].keyframe) {
            Entry &next = entries[1];
            keyframeBytes -= next.keyframeBytes();
            deltaBytes -= next.deltaBytes();
            forEachColumn([&](auto &, auto member) {
                const auto &base = (front.*member).keyframe();
                auto &d = next.*member;
                std::remove_const_t<std::remove_reference_t<decltype(base)>> list;
                if (d.ops.empty()) {
                    list = base; // unchanged
                } else {
                    list.reserve(base.size() + d.added.size());
                    replayOps(
                        d.ops, [&](int first, int n) { list.insert(list.end(), base.begin() + first, base.begin() + first + n); },
                        [&](int first, int n) { list.insert(list.end(), d.added.begin() + first, d.added.begin() + first + n); });
                }
                list.shrink_to_fit();
                if (!list.empty())
                    d.rareData().keyframe = std::move(list);
                d.ops = {};
            });
            next.keyframe = true;
            keyframeBytes += next.keyframeBytes();
            deltaBytes += next.deltaBytes();
        }
        entryBytes -= front.ownBytes();
        keyframeBytes -= front.keyframeBytes();
        deltaBytes -= front.deltaBytes();
        entries.pop_front();
    }

    int evict()
    {
        int evicted = 0;
        while (entries.size() > 1) {
            const QDateTime &newest = entries.back().capturedAt;
            const QDateTime &oldest = entries.front().capturedAt;
            const bool tooOld = policy.maxAgeSeconds > 0 && newest.isValid() && oldest.isValid()
                                && oldest.msecsTo(newest) > policy.maxAgeSeconds * 1000;
            const bool tooBig = policy.maxBytes > 0 && bytesHeld() > policy.maxBytes;
            if (!tooOld && !tooBig)
                break;
            popFront();
            ++evicted;
        }
        // Now and then, forget identities no kept entry (nor the one before the oldest) has.
        if (!entries.empty() && entries.front().serial - lastSweepSerial >= kKeyframeEvery) {
            lastSweepSerial = entries.front().serial;
            forEachColumn([&](auto &c, auto) { c.ids.sweep(lastSweepSerial - 1); });
            for (quint32 h = 0; h < pendingSince.size() && h < placementGroups.ids.size(); ++h)
                if (placementGroups.ids.lastSerial[h] < 0)
                    pendingSince[h] = -1;
        }
        return evicted;
    }

    // Moves a list (raw pointers: the entries keep the versions alive) on to the next entry.
    template<typename T>
    static void advance(std::vector<const VersionHeader *> &list, const Delta<T> &d, bool keyframe, std::vector<const VersionHeader *> &scratch)
    {
        if (keyframe) {
            list.clear();
            for (const Ref<T> &r : d.keyframe())
                list.push_back(r.get());
            return;
        }
        if (d.ops.empty())
            return; // unchanged
        scratch.clear();
        replayOps(
            d.ops, [&](int first, int n) { scratch.insert(scratch.end(), list.begin() + first, list.begin() + first + n); },
            [&](int first, int n) {
                for (int i = 0; i < n; ++i)
                    scratch.push_back(d.added[size_t(first + i)].get());
            });
        list.swap(scratch);
    }

    // The versions of entry `index`'s list of one kind.
    template<typename T>
    static std::vector<const VersionHeader *> versions(const std::deque<Entry> &entries, int key, int index, Delta<T> Entry::*member)
    {
        std::vector<const VersionHeader *> list, scratch;
        const Delta<T> &k = entries[size_t(key)].*member;
        list.reserve(k.keyframe().size());
        for (const Ref<T> &r : k.keyframe())
            list.push_back(r.get());
        for (int j = key + 1; j <= index; ++j)
            advance(list, entries[size_t(j)].*member, false, scratch);
        return list;
    }

    template<typename T>
    static QList<T> materialize(const std::vector<const VersionHeader *> &list, const IndexMaps &maps)
    {
        QList<T> out;
        out.reserve(qsizetype(list.size()));
        for (const VersionHeader *h : list)
            out.append(decode<T>(h, maps));
        return out;
    }

    SnapshotPtr rebuild(int index) const
    {
        int key = index;
        while (!entries[size_t(key)].keyframe)
            --key;
        const auto lRay = versions(entries, key, index, &Entry::rayNodes);
        const auto lPods = versions(entries, key, index, &Entry::pods);
        const auto lKube = versions(entries, key, index, &Entry::kubeNodes);
        const auto lSlices = versions(entries, key, index, &Entry::slices);
        const auto lGroups = versions(entries, key, index, &Entry::placementGroups);
        const auto lWorkerGroups = versions(entries, key, index, &Entry::workerGroups);
        const auto lClusters = versions(entries, key, index, &Entry::rayClusters);
        const auto lJobs = versions(entries, key, index, &Entry::jobs);

        IndexMaps maps;
        auto indexList = [&](Kind kind, const std::vector<const VersionHeader *> &list, const HandleTable &ids) {
            std::vector<int> &m = maps.of[kind];
            m.assign(ids.size(), -1);
            for (size_t i = 0; i < list.size(); ++i)
                m[list[i]->handle] = int(i);
        };
        indexList(RayNodes, lRay, rayNodes.ids);
        indexList(Pods, lPods, pods.ids);
        indexList(KubeNodes, lKube, kubeNodes.ids);
        indexList(Slices, lSlices, slices.ids);
        indexList(PlacementGroups, lGroups, placementGroups.ids);

        const Entry &e = entries[size_t(index)];
        auto snap = std::make_shared<ClusterSnapshot>();
        snap->capturedAt = e.capturedAt;
        snap->rayVersion = e.top->rayVersion;
        snap->kubeContext = e.top->kubeContext;
        snap->clusterStatusText = e.top->clusterStatusText;
        snap->hasRay = e.top->hasRay;
        snap->hasKubernetes = e.top->hasKubernetes;
        snap->errors = e.top->errors;
        snap->warnings = e.top->warnings;
        snap->rayNodes = materialize<RayNode>(lRay, maps);
        snap->pods = materialize<Pod>(lPods, maps);
        snap->kubeNodes = materialize<KubeNode>(lKube, maps);
        snap->slices = materialize<Slice>(lSlices, maps);
        snap->placementGroups = materialize<PlacementGroup>(lGroups, maps);
        snap->workerGroups = materialize<WorkerGroup>(lWorkerGroups, maps);
        snap->rayClusters = materialize<RayClusterInfo>(lClusters, maps);
        snap->jobs = materialize<Job>(lJobs, maps);
        return snap;
    }

    void clear()
    {
        entries.clear();
        latest.reset();
        cached.reset();
        cachedSerial = -1;
        forEachColumn([](auto &c, auto) {
            c.head = {};
            c.headIndex = {};
            c.headHandles = {};
            c.ids.clear();
        });
        pendingSince = {};
        sinceKeyframe = 0;
        entryBytes = keyframeBytes = deltaBytes = 0;
        lastSweepSerial = nextSerial;
        arena.trim();
    }
};

// ---- Events -------------------------------------------------------------------------------------

namespace {

class EventWriter
{
public:
    EventWriter(qint64 serial, const QDateTime &time, const HistoryEventFilter &filter, QList<HistoryEvent> &out)
        : m_serial(serial)
        , m_time(time)
        , m_filter(filter)
        , m_out(out)
    {
    }

    // Adds an event if the filter wants it; `describe` fills subject, text, from and to.
    template<typename F>
    void add(HistoryEventKind kind, const QString &slice, const QString &placementGroup, F &&describe)
    {
        if (!m_filter.kinds.isEmpty() && !m_filter.kinds.contains(kind))
            return;
        if (!m_filter.slice.isEmpty() && slice != m_filter.slice)
            return;
        if (!m_filter.placementGroup.isEmpty() && placementGroup != m_filter.placementGroup)
            return;
        HistoryEvent e;
        e.serial = m_serial;
        e.time = m_time;
        e.kind = kind;
        e.selectSlice = slice;
        e.selectPlacementGroup = placementGroup;
        describe(e);
        m_out.append(std::move(e));
    }

private:
    qint64 m_serial;
    QDateTime m_time;
    const HistoryEventFilter &m_filter;
    QList<HistoryEvent> &m_out;
};

HistoryEventKind hostEventKind(HostState state)
{
    switch (state) {
    case HostState::Alive: return HistoryEventKind::HostUp;
    case HostState::Dead: return HistoryEventKind::HostDied;
    case HostState::Pending: return HistoryEventKind::HostPending;
    case HostState::Missing: return HistoryEventKind::HostMissing;
    }
    Q_UNREACHABLE();
}

// The slice's own sentence about a worker ("worker 2 is DEAD"), if it has one.
QString workerProblem(const Slice &s, int worker)
{
    const QString prefix = QStringLiteral("worker %1 ").arg(worker);
    for (const QString &p : s.problems)
        if (p.startsWith(prefix))
            return p;
    return {};
}

// The previous entry's versions by handle, per kind, built when first asked for.
class Before
{
public:
    std::vector<const VersionHeader *> lists[KindCount];

    const VersionHeader *find(Kind kind, quint32 handle)
    {
        std::vector<const VersionHeader *> &byHandle = m_byHandle[kind];
        if (!m_built[kind]) {
            m_built[kind] = true;
            for (const VersionHeader *h : m_filled[kind]) // clears only what was set (handles run high)
                byHandle[h->handle] = nullptr;
            for (const VersionHeader *h : lists[kind]) {
                if (h->handle >= byHandle.size())
                    byHandle.resize(h->handle + 1, nullptr);
                byHandle[h->handle] = h;
            }
            m_filled[kind] = lists[kind];
        }
        return handle < byHandle.size() ? byHandle[handle] : nullptr;
    }
    // The lists moved on to the next entry.
    void invalidate() { std::fill(std::begin(m_built), std::end(m_built), false); }

private:
    std::vector<const VersionHeader *> m_byHandle[KindCount];
    std::vector<const VersionHeader *> m_filled[KindCount];
    bool m_built[KindCount] = {};
};

// Calls f(before, after) for each new version of one kind (before null: it appeared), then
// f(before, null) for each object gone; values decoded with references left as handles.
template<typename T, typename F>
void forEachChange(const Delta<T> &d, Before &before, const IndexMaps &handles, F &&f)
{
    for (const Ref<T> &r : d.added) {
        const VersionHeader *b = before.find(Codec<T>::kind, r->handle);
        const std::optional<T> was = b ? std::optional<T>(decode<T>(b, handles)) : std::nullopt;
        const T now = decode<T>(r.get(), handles);
        f(was ? &*was : nullptr, &now);
    }
    for (quint32 h : d.gone())
        if (const VersionHeader *b = before.find(Codec<T>::kind, h)) {
            const T was = decode<T>(b, handles);
            f(&was, nullptr);
        }
}

void writeEvents(const Entry &e, Before &before, const HistoryEventFilter &filter, QList<HistoryEvent> &out)
{
    EventWriter w(e.serial, e.capturedAt, filter, out);
    IndexMaps handles; // references stay handles: events compare them and look Ray nodes up by them
    handles.identity = true;

    forEachChange(e.rayClusters, before, handles, [&](const RayClusterInfo *a, const RayClusterInfo *b) {
        const RayClusterInfo &any = b ? *b : *a;
        const QString name = any.ns + u'/' + any.name;
        if (!a) {
            w.add(HistoryEventKind::RayClusterAdded, {}, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.to = b->state;
                ev.text = QStringLiteral("RayCluster %1 appeared%2").arg(name, b->state.isEmpty() ? QString() : QStringLiteral(": ") + b->state);
            });
        } else if (!b) {
            w.add(HistoryEventKind::RayClusterRemoved, {}, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.from = a->state;
                ev.text = QStringLiteral("RayCluster %1 was deleted").arg(name);
            });
        } else if (a->state != b->state) {
            w.add(HistoryEventKind::RayClusterStateChanged, {}, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.from = a->state;
                ev.to = b->state;
                ev.text = QStringLiteral("RayCluster %1: %2 → %3").arg(name, a->state.isEmpty() ? QStringLiteral("(no state)") : a->state, b->state.isEmpty() ? QStringLiteral("(no state)") : b->state);
            });
        }
    });

    auto range = [](int lo, int hi) {
        return hi == std::numeric_limits<int>::max() ? QStringLiteral("%1..").arg(lo) : QStringLiteral("%1..%2").arg(lo).arg(hi);
    };
    forEachChange(e.workerGroups, before, handles, [&](const WorkerGroup *a, const WorkerGroup *b) {
        const QString name = (b ? b : a)->qualifiedName();
        if (!a) {
            w.add(HistoryEventKind::WorkerGroupAdded, {}, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.to = QString::number(b->replicas);
                ev.text = QStringLiteral("worker group %1 appeared: %2 replicas (%3)").arg(name).arg(b->replicas).arg(range(b->minReplicas, b->maxReplicas));
            });
        } else if (!b) {
            w.add(HistoryEventKind::WorkerGroupRemoved, {}, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.from = QString::number(a->replicas);
                ev.text = QStringLiteral("worker group %1 was removed").arg(name);
            });
        } else if (a->replicas != b->replicas || a->minReplicas != b->minReplicas || a->maxReplicas != b->maxReplicas) {
            w.add(HistoryEventKind::WorkerGroupScaled, {}, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.from = QString::number(a->replicas);
                ev.to = QString::number(b->replicas);
                QStringList parts;
                if (a->replicas != b->replicas)
                    parts << QStringLiteral("replicas %1 → %2").arg(a->replicas).arg(b->replicas);
                if (a->minReplicas != b->minReplicas || a->maxReplicas != b->maxReplicas)
                    parts << QStringLiteral("range %1 → %2").arg(range(a->minReplicas, a->maxReplicas), range(b->minReplicas, b->maxReplicas));
                ev.text = name + QStringLiteral(": ") + parts.join(QStringLiteral(", "));
            });
        }
    });

    // Ray nodes changed in this entry, by handle: what a host's event can say about its node.
    std::optional<RayNode> nodeScratch;
    auto node = [&](int handle) -> const RayNode * {
        for (const Ref<RayNode> &r : e.rayNodes.added)
            if (handle >= 0 && r->handle == quint32(handle)) {
                nodeScratch = decode<RayNode>(r.get(), handles);
                return &*nodeScratch;
            }
        return nullptr;
    };
    // Pods changed in this entry, likewise: a host turned DEAD by its pod says why.
    std::optional<Pod> podScratch;
    auto pod = [&](int handle) -> const Pod * {
        for (const Ref<Pod> &r : e.pods.added)
            if (handle >= 0 && r->handle == quint32(handle)) {
                podScratch = decode<Pod>(r.get(), handles);
                return &*podScratch;
            }
        return nullptr;
    };
    forEachChange(e.slices, before, handles, [&](const Slice *a, const Slice *b) {
        if (!a) {
            w.add(HistoryEventKind::SliceAdded, b->name, {}, [&](HistoryEvent &ev) {
                ev.subject = b->name;
                ev.to = toText(b->status());
                ev.text = QStringLiteral("slice %1 appeared: %2").arg(b->name, sliceStatusText(*b));
            });
            return;
        }
        if (!b) {
            w.add(HistoryEventKind::SliceRemoved, a->name, {}, [&](HistoryEvent &ev) {
                ev.subject = a->name;
                ev.from = toText(a->status());
                ev.text = QStringLiteral("slice %1 was removed (it was %2)").arg(a->name, toText(a->status()));
            });
            return;
        }
        for (const Host &hb : b->hosts) {
            const Host *ha = nullptr;
            for (const Host &x : a->hosts)
                if (x.workerId == hb.workerId) {
                    ha = &x;
                    break;
                }
            if (!ha || ha->state == hb.state)
                continue;
            const Pod *going = hb.state == HostState::Dead ? pod(hb.pod) : nullptr;
            const bool removed = going && going->terminating;
            w.add(removed ? HistoryEventKind::HostRemoved : hostEventKind(hb.state), b->name, {}, [&](HistoryEvent &ev) {
                ev.subject = QStringLiteral("%1 worker %2").arg(b->name).arg(hb.workerId);
                ev.from = toText(ha->state);
                ev.to = toText(hb.state);
                const RayNode *n = node(hb.rayNode);
                QString detail;
                switch (hb.state) {
                case HostState::Dead:
                    if (removed) {
                        ev.text = ev.subject + QStringLiteral(" is being removed");
                        detail = QStringLiteral("pod %1 is being deleted").arg(going->qualifiedName());
                        break;
                    }
                    ev.text = ev.subject + QStringLiteral(" died");
                    if (going && going->isGone())
                        detail = QStringLiteral("pod %1 %2").arg(going->qualifiedName(), going->lifecycleText());
                    else if (n)
                        detail = QStringLiteral("Ray node %1 (%2)%3").arg(shortId(n->id), n->ip, n->stateMessage.isEmpty() ? QString() : QStringLiteral(": ") + n->stateMessage);
                    break;
                case HostState::Alive:
                    ev.text = ev.subject + QStringLiteral(" is up");
                    if (n && ha->rayNode != hb.rayNode)
                        detail = QStringLiteral("new Ray node %1 (%2)").arg(shortId(n->id), n->ip);
                    break;
                case HostState::Missing:
                    ev.text = ev.subject + QStringLiteral(" is missing: no Ray node or pod reports it");
                    break;
                case HostState::Pending:
                    ev.text = ev.subject + QStringLiteral(" is pending");
                    detail = workerProblem(*b, hb.workerId);
                    break;
                }
                if (!detail.isEmpty())
                    ev.text += QStringLiteral(" (") + detail + u')';
            });
        }
        const SliceStatus from = a->status(), to = b->status();
        if (from != to) {
            w.add(HistoryEventKind::SliceStatusChanged, b->name, {}, [&](HistoryEvent &ev) {
                ev.subject = b->name;
                ev.from = toText(from);
                ev.to = toText(to);
                ev.text = QStringLiteral("%1 became %2").arg(b->name, sliceStatusText(*b));
            });
        }
    });

    forEachChange(e.rayNodes, before, handles, [&](const RayNode *a, const RayNode *b) {
        if (!b || !b->sliceName.isEmpty() || (a && !a->sliceName.isEmpty()))
            return; // slice hosts speak through their slice; a dead node purged from the list is no news
        const bool wasAlive = a && a->alive;
        if (wasAlive == b->alive || (!a && !b->alive))
            return;
        const QString subject = QStringLiteral("Ray node %1 (%2)").arg(b->ip, shortId(b->id));
        w.add(b->alive ? HistoryEventKind::RayNodeUp : HistoryEventKind::RayNodeDied, {}, {}, [&](HistoryEvent &ev) {
            ev.subject = subject;
            ev.from = a ? (a->alive ? QStringLiteral("ALIVE") : QStringLiteral("DEAD")) : QString();
            ev.to = b->alive ? QStringLiteral("ALIVE") : QStringLiteral("DEAD");
            ev.text = b->alive ? (a ? subject + QStringLiteral(" is alive again") : subject + QStringLiteral(" joined"))
                               : subject + QStringLiteral(" died") + (b->stateMessage.isEmpty() ? QString() : QStringLiteral(": ") + b->stateMessage);
        });
    });

    forEachChange(e.placementGroups, before, handles, [&](const PlacementGroup *a, const PlacementGroup *b) {
        const PlacementGroup &any = b ? *b : *a;
        const QString slice = any.slices.value(0);
        auto on = [](const PlacementGroup &g) {
            return g.slices.isEmpty() ? QString() : QStringLiteral(" on ") + g.slices.join(QStringLiteral(", "));
        };
        auto why = [](const PlacementGroup &g) {
            return g.state == QLatin1String("PENDING") && !g.schedulingState.isEmpty() ? QStringLiteral(" (") + g.schedulingState + u')' : QString();
        };
        if (!a) {
            w.add(HistoryEventKind::PlacementGroupAdded, slice, b->id, [&](HistoryEvent &ev) {
                ev.subject = placementGroupLabel(*b);
                ev.to = b->state;
                ev.text = QStringLiteral("placement group %1 appeared: %2%3%4").arg(ev.subject, b->state, why(*b), on(*b));
            });
        } else if (!b) {
            w.add(HistoryEventKind::PlacementGroupRemoved, slice, a->id, [&](HistoryEvent &ev) {
                ev.subject = placementGroupLabel(*a);
                ev.from = a->state;
                ev.text = QStringLiteral("placement group %1 was removed (it was %2%3)").arg(ev.subject, a->state, on(*a));
            });
        } else if (a->state != b->state) {
            w.add(HistoryEventKind::PlacementGroupStateChanged, slice, b->id, [&](HistoryEvent &ev) {
                ev.subject = placementGroupLabel(*b);
                ev.from = a->state;
                ev.to = b->state;
                ev.text = QStringLiteral("placement group %1: %2 → %3%4%5").arg(ev.subject, a->state, b->state, why(*b), on(*b));
            });
        }
    });

    forEachChange(e.pods, before, handles, [&](const Pod *a, const Pod *b) {
        const Pod &any = b ? *b : *a;
        const QString name = any.qualifiedName();
        if (!a) {
            w.add(HistoryEventKind::PodAdded, b->replicaKey, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.to = b->phase;
                ev.text = QStringLiteral("pod %1 appeared: %2").arg(name, b->phase.isEmpty() ? QStringLiteral("(no phase)") : b->phase);
            });
        } else if (!b) {
            w.add(HistoryEventKind::PodRemoved, a->replicaKey, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.from = a->phase;
                ev.text = QStringLiteral("pod %1 was deleted (it was %2)").arg(name, a->phase.isEmpty() ? QStringLiteral("without a phase") : a->phase);
            });
        } else if (a->phase != b->phase) {
            w.add(HistoryEventKind::PodPhaseChanged, b->replicaKey, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.from = a->phase;
                ev.to = b->phase;
                ev.text = QStringLiteral("pod %1: %2 → %3").arg(name, a->phase, b->phase);
            });
        }
    });
}

} // namespace

SnapshotHistory::SnapshotHistory(QObject *parent)
    : SnapshotHistory(HistoryPolicy(), parent)
{ }

SnapshotHistory::SnapshotHistory(const HistoryPolicy &policy, QObject *parent)
    : QObject(parent)
    , d(std::make_unique<Private>())
{
    d->policy = policy;
}

SnapshotHistory::~SnapshotHistory() = default;

HistoryPolicy SnapshotHistory::policy() const
{
    return d->policy;
}

void SnapshotHistory::setPolicy(const HistoryPolicy &policy)
{
    d->policy = policy;
    if (const int evicted = d->evict())
        Q_EMIT entriesEvicted(evicted);
}

qint64 SnapshotHistory::add(const SnapshotPtr &snapshot)
{
    Q_ASSERT(snapshot);
    if (!snapshot)
        return -1;
    const qint64 serial = d->add(snapshot);
    if (const int evicted = d->evict())
        Q_EMIT entriesEvicted(evicted);
    Q_EMIT entryAdded(serial);
    return serial;
}

void SnapshotHistory::clear()
{
    d->clear();
    Q_EMIT cleared();
}

int SnapshotHistory::size() const
{
    return int(d->entries.size());
}

qint64 SnapshotHistory::serial(int index) const
{
    return d->entries.at(size_t(index)).serial;
}

QDateTime SnapshotHistory::time(int index) const
{
    return d->entries.at(size_t(index)).capturedAt;
}

int SnapshotHistory::indexOfSerial(qint64 serial) const
{
    if (d->entries.empty())
        return -1;
    const qint64 i = serial - d->entries.front().serial; // serials of kept entries are consecutive
    return i >= 0 && i < qint64(d->entries.size()) ? int(i) : -1;
}

int SnapshotHistory::indexAt(const QDateTime &time) const
{
    if (d->entries.empty())
        return -1;
    const auto it = std::upper_bound(d->entries.begin(), d->entries.end(), time,
                                     [](const QDateTime &t, const Entry &e) { return t < e.capturedAt; });
    return std::max(0, int(it - d->entries.begin()) - 1);
}

HistoryPoint SnapshotHistory::point(int index) const
{
    const Entry &e = d->entries.at(size_t(index));
    return d->unpack(e.point, e.serial, e.capturedAt);
}

SnapshotPtr SnapshotHistory::snapshot(int index) const
{
    if (index < 0 || index >= size())
        return {};
    if (index == size() - 1 && d->latest)
        return d->latest;
    const qint64 serial = d->entries[size_t(index)].serial;
    if (d->cachedSerial == serial)
        if (SnapshotPtr cached = d->cached.lock())
            return cached;
    SnapshotPtr snap = d->rebuild(index);
    d->cached = snap;
    d->cachedSerial = serial;
    return snap;
}

QList<HistoryEvent> SnapshotHistory::events(int index) const
{
    return events(index, index);
}

QList<HistoryEvent> SnapshotHistory::events(int first, int last, const HistoryEventFilter &filter) const
{
    QList<HistoryEvent> out;
    first = std::max(first, 1); // the oldest entry has nothing kept to compare with
    last = std::min(last, size() - 1);
    if (first > last)
        return out;
    // The lists of the entry before `first`, then moved on entry by entry.
    Before before;
    int key = first - 1;
    while (!d->entries[size_t(key)].keyframe)
        --key;
    d->forEachColumn([&](const auto &c, auto member) {
        before.lists[std::remove_reference_t<decltype(c)>::kind] = Private::versions(d->entries, key, first - 1, member);
    });
    std::vector<const VersionHeader *> scratch;
    for (int i = first; i <= last; ++i) {
        const Entry &e = d->entries[size_t(i)];
        writeEvents(e, before, filter, out);
        if (i == last)
            break;
        d->forEachColumn([&](const auto &c, auto member) {
            Private::advance(before.lists[std::remove_reference_t<decltype(c)>::kind], e.*member, e.keyframe, scratch);
        });
        before.invalidate();
    }
    return out;
}

qint64 SnapshotHistory::bytesHeld() const
{
    return d->bytesHeld();
}

HistoryMemory SnapshotHistory::memory() const
{
    HistoryMemory m;
    m.rayNodes = d->rayNodes.account.bytes;
    m.pods = d->pods.account.bytes;
    m.kubeNodes = d->kubeNodes.account.bytes;
    m.slices = d->slices.account.bytes;
    m.placementGroups = d->placementGroups.account.bytes;
    m.workerGroups = d->workerGroups.account.bytes;
    m.rayClusters = d->rayClusters.account.bytes;
    m.jobs = d->jobs.account.bytes;
    d->forEachColumn([&](const auto &c, auto) {
        m.objectVersions += c.account.count;
        m.plainVersions += c.account.plain;
    });
    m.texts = d->strings.bytes();
    m.versionSlack = d->arena.slack();
    for (size_t i = 1; i < d->entries.size(); ++i) {
        const Entry &e = d->entries[i];
        m.changes += qint64(e.rayNodes.changeCount() + e.pods.changeCount() + e.kubeNodes.changeCount() + e.slices.changeCount()
                            + e.placementGroups.changeCount() + e.workerGroups.changeCount() + e.rayClusters.changeCount()
                            + e.jobs.changeCount());
    }
    m.keyframes = d->keyframeBytes;
    m.deltas = d->deltaBytes;
    m.entries = d->entryBytes;
    m.identities = d->identityBytes();
    return m;
}

const GenerationStats *HistoryPoint::generation(QStringView label) const
{
    for (const GenerationStats &g : generations)
        if (g.label == label)
            return &g;
    return nullptr;
}

const WorkerGroupPoint *HistoryPoint::workerGroup(QStringView qualifiedName) const
{
    for (const WorkerGroupPoint &g : workerGroups)
        if (g.qualifiedName == qualifiedName)
            return &g;
    return nullptr;
}

QString toText(HistoryEventKind kind)
{
    switch (kind) {
    case HistoryEventKind::RayClusterAdded: return QStringLiteral("raycluster-added");
    case HistoryEventKind::RayClusterRemoved: return QStringLiteral("raycluster-removed");
    case HistoryEventKind::RayClusterStateChanged: return QStringLiteral("raycluster-state-changed");
    case HistoryEventKind::WorkerGroupAdded: return QStringLiteral("worker-group-added");
    case HistoryEventKind::WorkerGroupRemoved: return QStringLiteral("worker-group-removed");
    case HistoryEventKind::WorkerGroupScaled: return QStringLiteral("worker-group-scaled");
    case HistoryEventKind::SliceAdded: return QStringLiteral("slice-added");
    case HistoryEventKind::SliceRemoved: return QStringLiteral("slice-removed");
    case HistoryEventKind::SliceStatusChanged: return QStringLiteral("slice-status-changed");
    case HistoryEventKind::HostDied: return QStringLiteral("host-died");
    case HistoryEventKind::HostRemoved: return QStringLiteral("host-removed");
    case HistoryEventKind::HostUp: return QStringLiteral("host-up");
    case HistoryEventKind::HostMissing: return QStringLiteral("host-missing");
    case HistoryEventKind::HostPending: return QStringLiteral("host-pending");
    case HistoryEventKind::RayNodeDied: return QStringLiteral("ray-node-died");
    case HistoryEventKind::RayNodeUp: return QStringLiteral("ray-node-up");
    case HistoryEventKind::PlacementGroupAdded: return QStringLiteral("placement-group-added");
    case HistoryEventKind::PlacementGroupStateChanged: return QStringLiteral("placement-group-state-changed");
    case HistoryEventKind::PlacementGroupRemoved: return QStringLiteral("placement-group-removed");
    case HistoryEventKind::PodAdded: return QStringLiteral("pod-added");
    case HistoryEventKind::PodRemoved: return QStringLiteral("pod-removed");
    case HistoryEventKind::PodPhaseChanged: return QStringLiteral("pod-phase-changed");
    }
    Q_UNREACHABLE();
}

QDebug operator<<(QDebug debug, HistoryEventKind kind)
{
    QDebugStateSaver saver(debug);
    debug.noquote() << toText(kind);
    return debug;
}

QDebug operator<<(QDebug debug, const HistoryEvent &event)
{
    QDebugStateSaver saver(debug);
    debug.nospace().noquote() << "HistoryEvent(" << event.serial << ", " << toText(event.kind) << ", " << event.text << ')';
    return debug;
}

QDebug operator<<(QDebug debug, const HistoryPoint &point)
{
    QDebugStateSaver saver(debug);
    debug.nospace() << "HistoryPoint(" << point.serial << ", " << point.time.toString(Qt::ISODate) << ", " << point.fleet
                    << ", placement groups pending " << point.placementGroups.pending << " created "
                    << point.placementGroups.created << ')';
    return debug;
}

} // namespace slicescope
