// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// SnapshotHistory's storage building blocks (history.cpp says how they fit together): the byte
// estimates every part reports, IdIndex (an open-addressing index of ids whose keys live
// elsewhere), the reference-counted StringTable, the identity tables (HandleTable), the per-kind
// index <-> handle maps of one snapshot, the Arena encoded versions live in, a version's header
// and Ref (the intrusive reference to it), and Packed (a fixed array). None of it knows a
// snapshot type: releaseStrings<T>() is defined with the field lists (history_kinds_p.h).
// Private to model/ (never installed).

#include <QHash>
#include <QList>
#include <QString>

#include <algorithm>
#include <deque>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace slicescope::historydetail {

// ---- Byte estimates -----------------------------------------------------------------------------
//
// What the heap really spends: glibc's malloc adds an 8-byte header, rounds to 16 and never hands
// out less than 32 bytes. Qt's array data (QString, QList) carries a 16-byte header.

constexpr qint64 heapBlock(qint64 payload)
{
    return std::max<qint64>(32, (payload + 8 + 15) & ~qint64(15));
}

inline qint64 stringBytes(const QString &s)
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

} // namespace slicescope::historydetail
