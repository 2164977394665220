// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandpalette.h"

#include <QApplication>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPainter>
#include <QStyledItemDelegate>
#include <QVBoxLayout>

namespace slicescope {

namespace {

constexpr int kEntryRole = Qt::UserRole + 1;

// A row: the kind as a small tag on the left, the text, the detail dimmed after it, the
// shortcut on the right. Colours from the palette, so the theme's light or dark applies.
class EntryDelegate : public QStyledItemDelegate
{
public:
    EntryDelegate(const CommandPalette *palette, QObject *parent)
        : QStyledItemDelegate(parent)
        , m_palette(palette)
    {
    }

    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &) const override
    {
        return {option.rect.width(), option.fontMetrics.height() + 10};
    }

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        const int at = index.data(kEntryRole).toInt();
        if (at < 0 || at >= m_palette->entries().size()) return;
        const PaletteEntry &e = m_palette->entries()[at];
        const QPalette &pal = option.palette;
        const bool selected = option.state & QStyle::State_Selected;
        painter->save();
        painter->fillRect(option.rect, selected ? pal.color(QPalette::Highlight) : pal.color(QPalette::Base));
        const QColor text = selected ? pal.color(QPalette::HighlightedText) : pal.color(QPalette::Text);
        QColor dim = text;
        dim.setAlphaF(0.65);
        QRect r = option.rect.adjusted(8, 0, -8, 0);
        QFont small = option.font;
        small.setPixelSize(std::max(9, option.font.pixelSize() > 0 ? option.font.pixelSize() - 2 : 10));
        const QFontMetrics smallMetrics(small);
        // The kind, a fixed-width tag so the texts line up.
        const int tagWidth = smallMetrics.horizontalAdvance(QStringLiteral("Placement group")) + 12;
        const QRect tag(r.left(), r.center().y() - smallMetrics.height() / 2 - 2, tagWidth, smallMetrics.height() + 4);
        painter->setFont(small);
        painter->setPen(dim);
        painter->drawText(tag, Qt::AlignLeft | Qt::AlignVCenter, e.kind);
        r.setLeft(tag.right() + 6);
        // The shortcut, right-aligned.
        if (!e.shortcut.isEmpty()) {
            const int w = smallMetrics.horizontalAdvance(e.shortcut);
            painter->drawText(QRect(r.right() - w, r.top(), w, r.height()), Qt::AlignRight | Qt::AlignVCenter, e.shortcut);
            r.setRight(r.right() - w - 12);
        }
        // The text, then the detail in what room is left.
        painter->setFont(option.font);
        painter->setPen(text);
        const QFontMetrics metrics(option.font);
        const QString shown = metrics.elidedText(e.text, Qt::ElideMiddle, r.width());
        painter->drawText(r, Qt::AlignLeft | Qt::AlignVCenter, shown);
        const int used = metrics.horizontalAdvance(shown) + 10;
        if (!e.detail.isEmpty() && used < r.width() - 40) {
            painter->setFont(small);
            painter->setPen(dim);
            const QRect rest(r.left() + used, r.top(), r.width() - used, r.height());
            painter->drawText(rest, Qt::AlignLeft | Qt::AlignVCenter, smallMetrics.elidedText(e.detail, Qt::ElideRight, rest.width()));
        }
        painter->restore();
    }

private:
    const CommandPalette *m_palette;
};

} // namespace

CommandPalette::CommandPalette(QWidget *parent)
    : QDialog(parent)
    , m_input(new QLineEdit(this))
    , m_list(new QListWidget(this))
    , m_more(new QLabel(this))
{
    setObjectName(QStringLiteral("commandPalette"));
    setWindowTitle(tr("Go to"));
    m_input->setObjectName(QStringLiteral("paletteInput"));
    m_input->setPlaceholderText(tr("Type a slice, placement group, worker group, action or view"));
    m_input->setClearButtonEnabled(true);
    m_list->setObjectName(QStringLiteral("paletteList"));
    m_list->setItemDelegate(new EntryDelegate(this, m_list));
    m_list->setUniformItemSizes(true);
    m_list->setFocusPolicy(Qt::NoFocus); // typing stays in the box; arrows move the list (eventFilter)
    m_more->setObjectName(QStringLiteral("paletteMore"));
    m_more->setVisible(false);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(10, 10, 10, 10);
    layout->setSpacing(6);
    layout->addWidget(m_input);
    layout->addWidget(m_list, 1);
    layout->addWidget(m_more);
    resize(640, 420);
    m_input->installEventFilter(this);
    connect(m_input, &QLineEdit::textChanged, this, &CommandPalette::refilter);
    connect(m_list, &QListWidget::itemActivated, this, [this] { runCurrent(); });
}

void CommandPalette::setEntries(QList<PaletteEntry> entries)
{
    m_entries = std::move(entries);
    refilter();
}

QList<int> CommandPalette::rank(const QList<PaletteEntry> &entries, const QString &query)
{
    const QString whole = query.simplified();
    const QStringList words = whole.split(u' ', Qt::SkipEmptyParts);
    QList<int> ranks[4];
    for (int i = 0; i < entries.size(); ++i) {
        const PaletteEntry &e = entries[i];
        if (words.isEmpty()) {
            ranks[0] << i;
            continue;
        }
        const QString all = e.text + u' ' + e.kind + u' ' + e.detail;
        bool every = true, everyInText = true;
        for (const QString &w : words) {
            every = every && all.contains(w, Qt::CaseInsensitive);
            everyInText = everyInText && e.text.contains(w, Qt::CaseInsensitive);
        }
        if (!every) continue;
        if (e.text.startsWith(whole, Qt::CaseInsensitive)) ranks[0] << i;
        else if (e.text.contains(whole, Qt::CaseInsensitive)) ranks[1] << i;
        else if (everyInText) ranks[2] << i;
        else ranks[3] << i;
    }
    return ranks[0] + ranks[1] + ranks[2] + ranks[3];
}

int CommandPalette::currentEntry() const
{
    const QListWidgetItem *item = m_list->currentItem();
    return item ? item->data(kEntryRole).toInt() : -1;
}

void CommandPalette::refilter()
{
    const QList<int> found = rank(m_entries, m_input->text());
    m_list->clear();
    for (int i = 0; i < found.size() && i < kMaxRows; ++i) {
        const PaletteEntry &e = m_entries[found[i]];
        auto *item = new QListWidgetItem(e.text, m_list);
        item->setData(kEntryRole, found[i]);
        item->setToolTip(e.detail.isEmpty() ? e.kind : e.kind + QStringLiteral(": ") + e.detail);
    }
    if (m_list->count() > 0) m_list->setCurrentRow(0);
    const qsizetype hidden = found.size() - m_list->count();
    m_more->setText(found.isEmpty() ? tr("Nothing matches \"%1\"").arg(m_input->text().simplified())
                                    : tr("+%n more: type more to narrow", nullptr, int(hidden)));
    m_more->setVisible(found.isEmpty() || hidden > 0);
}

void CommandPalette::runCurrent()
{
    const int at = currentEntry();
    if (at < 0) return;
    // Close first: what the entry does may open a dialog of its own.
    const std::function<void()> run = m_entries[at].run;
    accept();
    if (run) run();
}

bool CommandPalette::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_input && event->type() == QEvent::KeyPress) {
        const auto *key = static_cast<QKeyEvent *>(event);
        const int rows = m_list->count();
        switch (key->key()) {
        case Qt::Key_Down:
        case Qt::Key_Up:
            if (rows > 0) m_list->setCurrentRow((m_list->currentRow() + (key->key() == Qt::Key_Down ? 1 : rows - 1)) % rows);
            return true;
        case Qt::Key_PageDown:
        case Qt::Key_PageUp:
            if (rows > 0) m_list->setCurrentRow(std::clamp(m_list->currentRow() + (key->key() == Qt::Key_PageDown ? 10 : -10), 0, rows - 1));
            return true;
        case Qt::Key_Return:
        case Qt::Key_Enter:
            runCurrent();
            return true;
        default: break;
        }
    }
    return QDialog::eventFilter(watched, event);
}

} // namespace slicescope
