// SPDX-License-Identifier: GPL-3.0-or-later
// slicescope in the browser (the WebAssembly build; installer/web/build.sh): the main window,
// full-page, on
//   - the demo cluster, by default;
//   - the relay that served the page, when its URL carries ?token=... (`slicescope serve`);
//   - a capture file or recording the user opens (File > Open: the browser's file picker) or drops
//     on the page, read entirely in the page.
// With `still` in the page's query (`index.html?still`, `/?token=...&still`) the page draws the
// first capture its source delivers and holds it: a static view to embed, and a frame that a
// comparison with the desktop's rendering of one capture cannot race with the next (the demo
// ticks every second). Opening a file still works.
// The window starts in the state `slicescope screenshot` renders (setUpScreenshotWindow()), so its
// first frame is the desktop's golden image. The page's console gets lines tests wait for:
// "slicescope: first frame" once the overview has been drawn on real data,
// "slicescope: showing slice NAME" whenever the slice view shows another slice,
// "slicescope: source: ..." when another source is shown,
// "slicescope: placement group NAME: STATE" (or ": gone") when a drawn snapshot shows a group
// appear, change state or go (against the first snapshot drawn of the source),
// "slicescope: review: Reserve|Release" when the composer's review (with its confirm button) is
// drawn, and "slicescope: action: TEXT" for each step and the outcome of a composer action.

#include "look.h"
#include "mainwindow.h"
#include "democluster.h"
#include "relaysource.h"
#include "screenshot.h"
#include "slicecomposer.h"
#include "sliceview.h"
#include "source.h"
#include "workspace.h"
#include "fleetoverview.h"

#include <QApplication>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QMap>
#include <QMimeData>
#include <QPushButton>
#include <QScreen>
#include <QUrl>
#include <QUrlQuery>

#include <optional>

#include <emscripten.h>
#include <emscripten/val.h>

using namespace slicescope;

namespace {

// console.log, after the browser has presented the frame being drawn now: Qt paints into its
// backing store and the canvas is updated on the next animation frame, so wait two of them.
void logAfterNextFrame(const QString &line)
{
    const QByteArray utf8 = line.toUtf8();
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdollar-in-identifier-extension" // EM_ASM's $0
    // clang-format off: the block is JavaScript
    EM_ASM({
        const line = UTF8ToString($0);
        requestAnimationFrame(() => requestAnimationFrame(() => console.log(line)));
    }, utf8.constData());
    // clang-format on
#pragma clang diagnostic pop
}

// Watches the window's views and says on the console what a test (or a person) may wait for.
class PageSignals : public QObject
{
public:
    explicit PageSignals(MainWindow *window)
        : QObject(window)
        , m_window(window)
    {
        m_window->workspace()->overview()->installEventFilter(this);
        m_window->workspace()->sliceView()->installEventFilter(this);
        if ((m_review = m_window->findChild<QWidget *>(QStringLiteral("reviewArea")))) m_review->installEventFilter(this);
        if (auto *composer = m_window->findChild<SliceComposer *>())
            connect(composer, &SliceComposer::actionStatusChanged, this,
                    [](const QString &text) { logAfterNextFrame(QStringLiteral("slicescope: action: %1").arg(text)); });
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (watched == m_review) {
            if (event->type() == QEvent::Hide) {
                m_reviewDrawn = false;
            } else if (event->type() == QEvent::Paint && !m_reviewDrawn) {
                m_reviewDrawn = true;
                const auto *confirm = m_review->findChild<QPushButton *>(QStringLiteral("confirm"));
                logAfterNextFrame(QStringLiteral("slicescope: review: %1").arg(confirm ? confirm->text() : QString()));
            }
            return false;
        }
        if (event->type() != QEvent::Paint) return false;
        Workspace *ws = m_window->workspace();
        if (ws->snapshot()) {
            // The status line's first part names the source ("Source: capture foo.slicescope.json").
            const QString source = m_window->statusText().section(QStringLiteral("  ·  "), 0, 0);
            if (source != m_source) {
                m_source = source;
                m_groups.reset();
                logAfterNextFrame(QStringLiteral("slicescope: source: %1").arg(source.section(QStringLiteral(": "), 1)));
            }
            if (ws->snapshot() != m_groupsOf) {
                m_groupsOf = ws->snapshot();
                logGroupChanges(*ws->snapshot());
            }
        }
        if (watched == ws->overview() && !m_firstFrame && ws->snapshot()) {
            m_firstFrame = true;
            logAfterNextFrame(QStringLiteral("slicescope: first frame"));
        } else if (watched == ws->sliceView()) {
            const QString name = ws->sliceView()->sliceName();
            if (!name.isEmpty() && name != m_shownSlice) {
                m_shownSlice = name;
                logAfterNextFrame(QStringLiteral("slicescope: showing slice %1").arg(name));
            }
        }
        return false;
    }

private:
    // The placement groups of the snapshot being drawn (name, else id: state) against the last
    // drawn; the first snapshot of a source is the baseline and says nothing.
    void logGroupChanges(const ClusterSnapshot &snapshot)
    {
        QMap<QString, QString> groups;
        for (const PlacementGroup &g : snapshot.placementGroups)
            groups.insert(g.name.isEmpty() ? g.id : g.name, g.state);
        if (m_groups) {
            for (auto it = groups.cbegin(); it != groups.cend(); ++it)
                if (m_groups->value(it.key()) != it.value()) logAfterNextFrame(QStringLiteral("slicescope: placement group %1: %2").arg(it.key(), it.value()));
            for (auto it = m_groups->cbegin(); it != m_groups->cend(); ++it)
                if (!groups.contains(it.key())) logAfterNextFrame(QStringLiteral("slicescope: placement group %1: gone").arg(it.key()));
        }
        m_groups = std::move(groups);
    }

    MainWindow *m_window;
    QWidget *m_review = nullptr; // the composer's review area (Confirm/Cancel)
    bool m_reviewDrawn = false;
    bool m_firstFrame = false;
    QString m_shownSlice;
    QString m_source;
    SnapshotPtr m_groupsOf; // held: a pointer alone could be a new snapshot at a freed one's address
    std::optional<QMap<QString, QString>> m_groups;
};

// Files dropped on the page: Qt writes them into the page's in-memory file system and delivers
// their local URLs; they are read like any capture file.
class DropOpener : public QObject
{
public:
    explicit DropOpener(MainWindow *window)
        : QObject(window)
        , m_window(window)
    {
        window->setAcceptDrops(true);
        window->installEventFilter(this);
    }

protected:
    bool eventFilter(QObject *, QEvent *event) override
    {
        if (event->type() == QEvent::DragEnter || event->type() == QEvent::DragMove) {
            auto *drag = static_cast<QDropEvent *>(event);
            if (firstLocalFile(drag->mimeData()).isEmpty()) return false;
            drag->acceptProposedAction();
            return true;
        }
        if (event->type() == QEvent::Drop) {
            auto *drop = static_cast<QDropEvent *>(event);
            const QString path = firstLocalFile(drop->mimeData());
            if (path.isEmpty()) return false;
            drop->acceptProposedAction();
            m_window->setSource(std::make_unique<CaptureFileSource>(path));
            return true;
        }
        return false;
    }

private:
    static QString firstLocalFile(const QMimeData *data)
    {
        if (data)
            for (const QUrl &url : data->urls())
                if (url.isLocalFile()) return url.toLocalFile();
        return {};
    }

    MainWindow *m_window;
};

// Forwards the first capture of the source it wraps, then lets that source go (the page's `still`).
class FirstCaptureSource : public Source
{
public:
    explicit FirstCaptureSource(std::unique_ptr<Source> inner)
        : m_inner(std::move(inner))
        , m_description(m_inner->description())
    {
        m_inner->setParent(this);
        connect(m_inner.get(), &Source::failed, this, &Source::failed);
        connect(m_inner.get(), &Source::captureReceived, this, [this](const Capture &capture) {
            if (!m_inner) return;
            Q_EMIT captureReceived(capture);
            m_inner.release()->deleteLater(); // parented to this until then; stops ticking or listening
        });
    }
    QString description() const override { return m_description; }
    void start() override
    {
        if (m_inner) m_inner->start();
    }

private:
    std::unique_ptr<Source> m_inner;
    QString m_description;
};

QUrl pageUrl()
{
    const std::string href = emscripten::val::global("location")["href"].as<std::string>();
    return QUrl(QString::fromStdString(href));
}

} // namespace

int main(int argc, char **argv)
{
    pinRenderingEnvironment(false); // font DPI, scaling, hash seed: as the goldens were rendered
    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("SliceScope"));
    QCoreApplication::setApplicationName(QStringLiteral("slicescope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(SLICESCOPE_VERSION));

    ScreenshotOptions options; // the overview, coloured by bundle, light: the desktop's defaults
    applyLook(app, Theme::named(options.theme));
    options.size = app.primaryScreen()->size(); // the canvas, i.e. the page

    // A relay when the page came from `slicescope serve` (same origin: ws(s)://host/relay?token=),
    // else the demo. Nothing secret is read or kept: the token only goes back to the relay.
    const QUrl url = pageUrl();
    std::unique_ptr<Source> source;
    if (QUrlQuery(url).hasQueryItem(QStringLiteral("token"))) source = std::make_unique<RelaySource>(url);
    else source = std::make_unique<DemoSource>();
    if (QUrlQuery(url).hasQueryItem(QStringLiteral("still"))) source = std::make_unique<FirstCaptureSource>(std::move(source));

    // Screenshot mode: deterministic, and nothing stored in the browser.
    auto *window = new MainWindow(MainWindow::Mode::Screenshot);
    window->setAttribute(Qt::WA_DeleteOnClose);
    new PageSignals(window);
    new DropOpener(window);
    QString error;
    if (!setUpScreenshotWindow(*window, std::move(source), options, &error)) qWarning("slicescope: %s", qPrintable(error));
    window->showFullScreen(); // fills the canvas, no decoration
    return app.exec();
}
