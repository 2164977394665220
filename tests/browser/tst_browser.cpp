// SPDX-License-Identifier: GPL-3.0-or-later
// The browser tier: the WebAssembly bundle (installer/web/build.sh), served by `slicescope serve
// --demo`, loaded in Debian's headless Chromium driven over the DevTools protocol (docs/facts.md 5).
// The page's first frame must match the desktop's golden `demo-overview` (the same comparison and
// tolerance as tests/widgets); a click on a slice tile must open that slice in the slice view.
// The app prints "slicescope: first frame" and "slicescope: showing slice NAME" on the console
// (app/main_wasm.cpp); this test waits for those lines, never for a fixed time. Through the relay,
// a slice reserved in the page's composer must reach the demo behind the relay and come back.
//
// Needs SLICESCOPE_WEB_BUNDLE (the bundle folder) and Chromium (SLICESCOPE_CHROMIUM, default
// /usr/bin/chromium); tests/CMakeLists.txt adds this tier only when given a bundle.

#include "capturefile.h"
#include "democluster.h"
#include "fleetoverview.h"
#include "../common/clirun.h"
#include "../common/golden.h"
#include "../common/relayprocess.h"
#include "look.h"
#include "mainwindow.h"
#include "relaysource.h"
#include "screenshot.h"
#include "slicecomposer.h"
#include "source.h"
#include "workspace.h"

#include <QAction>
#include <QApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>
#include <QUrlQuery>
#include <QWebSocket>

#include <memory>

using namespace slicescope;
using namespace slicescope::testing;

namespace {

constexpr int kStartMs = 60000;      // Chromium, the relay
constexpr int kFirstFrameMs = 120000; // download, compile and start 14 MB of wasm on a slow CI core

// A DevTools protocol session with one page target over a WebSocket.
class DevTools : public QObject
{
public:
    bool open(const QUrl &webSocketUrl)
    {
        connect(&m_socket, &QWebSocket::textMessageReceived, this, &DevTools::onMessage);
        m_socket.open(webSocketUrl);
        return QTest::qWaitFor([this] { return m_socket.state() == QAbstractSocket::ConnectedState; }, kStartMs);
    }

    // Sends a command and waits for its reply; the reply's "result", or an empty object with
    // *error set.
    QJsonObject call(const QString &method, const QJsonObject &params = {}, QString *error = nullptr, int timeoutMs = 30000)
    {
        const int id = ++m_lastId;
        m_socket.sendTextMessage(QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("id"), id}, {QStringLiteral("method"), method}, {QStringLiteral("params"), params}})
                                                       .toJson(QJsonDocument::Compact)));
        if (!QTest::qWaitFor([&] { return m_replies.contains(id); }, timeoutMs)) {
            if (error)
                *error = QStringLiteral("%1: no reply in %2 ms").arg(method).arg(timeoutMs);
            return {};
        }
        const QJsonObject reply = m_replies.take(id);
        if (reply.contains(QLatin1String("error"))) {
            if (error)
                *error = QStringLiteral("%1: %2").arg(method, QString::fromUtf8(QJsonDocument(reply.value(QLatin1String("error")).toObject()).toJson(QJsonDocument::Compact)));
            return {};
        }
        return reply.value(QLatin1String("result")).toObject();
    }

    // The page as it is now, RGB32; null with *error set on failure.
    QImage screenshot(QString *error)
    {
        const QJsonObject shot = call(QStringLiteral("Page.captureScreenshot"), {{QStringLiteral("format"), QStringLiteral("png")}}, error);
        return QImage::fromData(QByteArray::fromBase64(shot.value(QLatin1String("data")).toString().toLatin1()), "PNG")
            .convertToFormat(QImage::Format_RGB32);
    }

    // A left click at `at` (page pixels): the mouse moves there, presses, releases.
    bool click(QPoint at, QString *error)
    {
        for (const char *type : {"mouseMoved", "mousePressed", "mouseReleased"}) {
            QJsonObject event{{QStringLiteral("type"), QLatin1String(type)}, {QStringLiteral("x"), at.x()}, {QStringLiteral("y"), at.y()}};
            if (qstrcmp(type, "mouseMoved") != 0) {
                event.insert(QStringLiteral("button"), QStringLiteral("left"));
                event.insert(QStringLiteral("clickCount"), 1);
            }
            call(QStringLiteral("Input.dispatchMouseEvent"), event, error);
            if (error && !error->isEmpty())
                return false;
        }
        return true;
    }

    // One key pressed and released; `text` is typed when no modifier is held.
    bool key(const QString &text, const QString &code, int virtualKey, int modifiers, QString *error)
    {
        for (const char *type : {"keyDown", "keyUp"}) {
            QJsonObject event{{QStringLiteral("type"), QLatin1String(type)}, {QStringLiteral("modifiers"), modifiers}, {QStringLiteral("key"), text}, {QStringLiteral("code"), code}, {QStringLiteral("windowsVirtualKeyCode"), virtualKey}};
            if (modifiers == 0 && qstrcmp(type, "keyDown") == 0)
                event.insert(QStringLiteral("text"), text);
            call(QStringLiteral("Input.dispatchKeyEvent"), event, error);
            if (error && !error->isEmpty())
                return false;
        }
        return true;
    }

    // The console lines so far (console.log and friends, first argument), in order.
    const QStringList &consoleLines() const { return m_console; }
    // Waits for `line` among the console lines from index `from` on (a new page load starts later).
    bool waitForConsoleLine(const QString &line, int timeoutMs, qsizetype from = 0)
    {
        return QTest::qWaitFor([&] { return m_console.indexOf(line, from) >= 0; }, timeoutMs);
    }

    // The parameters of the first event `method` from index `from` on of all events.
    qsizetype eventCount() const { return m_events.size(); }
    bool waitForEvent(const QString &method, QJsonObject *params, int timeoutMs, qsizetype from)
    {
        return QTest::qWaitFor([&] {
            for (qsizetype i = from; i < m_events.size(); ++i)
                if (m_events[i].first == method) {
                    *params = m_events[i].second;
                    return true;
                }
            return false;
        },
                               timeoutMs);
    }

private:
    void onMessage(const QString &text)
    {
        const QJsonObject message = QJsonDocument::fromJson(text.toUtf8()).object();
        if (message.contains(QLatin1String("id"))) {
            m_replies.insert(message.value(QLatin1String("id")).toInt(), message);
            return;
        }
        const QString method = message.value(QLatin1String("method")).toString();
        const QJsonObject params = message.value(QLatin1String("params")).toObject();
        m_events.append({method, params});
        if (method == QLatin1String("Runtime.consoleAPICalled")) {
            const QJsonArray args = params.value(QLatin1String("args")).toArray();
            const QString line = args.isEmpty() ? QString() : args.first().toObject().value(QLatin1String("value")).toVariant().toString();
            m_console << line;
            if (line.startsWith(QLatin1String("slicescope:")))
                qInfo("page console: %s", qPrintable(line));
        } else if (method == QLatin1String("Runtime.exceptionThrown")) {
            const QString what = params.value(QLatin1String("exceptionDetails")).toObject().value(QLatin1String("text")).toString();
            m_console << QStringLiteral("exception: ") + what;
            qWarning("page exception: %s", qPrintable(what));
        }
    }

    QWebSocket m_socket;
    int m_lastId = 0;
    QHash<int, QJsonObject> m_replies;
    QStringList m_console;
    QList<QPair<QString, QJsonObject>> m_events;
};

QJsonDocument getJson(const QUrl &url)
{
    QNetworkAccessManager manager;
    std::unique_ptr<QNetworkReply> reply(manager.get(QNetworkRequest(url)));
    if (!QTest::qWaitFor([&] { return reply->isFinished(); }, kStartMs))
        return {};
    return QJsonDocument::fromJson(reply->readAll());
}

void stop(QProcess &process)
{
    if (process.state() == QProcess::NotRunning)
        return;
    process.terminate();
    if (!process.waitForFinished(10000)) {
        process.kill();
        process.waitForFinished(5000);
    }
}

} // namespace

class TestBrowser : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        m_bundle = qEnvironmentVariable("SLICESCOPE_WEB_BUNDLE");
        QVERIFY2(QFile::exists(m_bundle + QStringLiteral("/slicescope.wasm")),
                 qPrintable(QStringLiteral("SLICESCOPE_WEB_BUNDLE=%1 holds no slicescope.wasm: build it with installer/web/build.sh").arg(m_bundle)));
        const QString chromium = qEnvironmentVariable("SLICESCOPE_CHROMIUM", QStringLiteral("/usr/bin/chromium"));
        QVERIFY2(QFile::exists(chromium), qPrintable(chromium + QStringLiteral(" is missing: apt-get install chromium")));

        // The relay serves the bundle (and, on the same origin, the WebSocket relay).
        QVERIFY2(m_serve.start({QStringLiteral("--demo"), QStringLiteral("--web-root"), m_bundle}, kStartMs),
                 qPrintable(QStringLiteral("`slicescope serve` printed no URL: ") + QString::fromUtf8(m_serve.readErr())));
        m_relayUrl = m_serve.url;

        QVERIFY(m_profile.isValid());
        m_chromium.setProgram(chromium);
        m_chromium.setArguments({QStringLiteral("--headless"), QStringLiteral("--no-sandbox"), QStringLiteral("--disable-gpu"),
                                 QStringLiteral("--disable-quic"), QStringLiteral("--no-first-run"),
                                 QStringLiteral("--disable-background-networking"), QStringLiteral("--disable-component-update"),
                                 QStringLiteral("--disable-sync"), QStringLiteral("--enable-unsafe-swiftshader"),
                                 QStringLiteral("--user-data-dir=") + m_profile.path(), QStringLiteral("--remote-debugging-port=0"),
                                 QStringLiteral("--window-size=1280,800"), QStringLiteral("--force-device-scale-factor=1"),
                                 QStringLiteral("about:blank")});
        // Chromium's own chatter (D-Bus, GPU stalls) goes to a file in the working folder, not the test log.
        m_chromium.setStandardOutputFile(QProcess::nullDevice());
        m_chromium.setStandardErrorFile(QStringLiteral("chromium.log"));
        m_chromium.start();
        QVERIFY2(m_chromium.waitForStarted(kStartMs), qPrintable(m_chromium.errorString()));
        // Chromium writes the port it picked (and the browser target's path) into the profile.
        int port = 0;
        QVERIFY2(QTest::qWaitFor([&] {
                     QFile file(m_profile.filePath(QStringLiteral("DevToolsActivePort")));
                     if (file.open(QIODevice::ReadOnly))
                         port = file.readLine().trimmed().toInt();
                     return port > 0 || m_chromium.state() == QProcess::NotRunning;
                 },
                                 kStartMs)
                     && port > 0,
                 "Chromium wrote no DevToolsActivePort");
        const QJsonArray targets = getJson(QUrl(QStringLiteral("http://127.0.0.1:%1/json/list").arg(port))).array();
        QUrl pageSocket;
        for (const QJsonValue &t : targets)
            if (t.toObject().value(QLatin1String("type")).toString() == QLatin1String("page"))
                pageSocket = QUrl(t.toObject().value(QLatin1String("webSocketDebuggerUrl")).toString());
        QVERIFY2(pageSocket.isValid(), "no page target in Chromium's /json/list");
        QVERIFY(m_devtools.open(pageSocket));
        QString error;
        for (const char *method : {"Runtime.enable", "Page.enable", "Network.enable"}) {
            m_devtools.call(QLatin1String(method), {}, &error);
            QVERIFY2(error.isEmpty(), qPrintable(error));
        }
        m_devtools.call(QStringLiteral("Emulation.setDeviceMetricsOverride"),
                        {{QStringLiteral("width"), 1280}, {QStringLiteral("height"), 800}, {QStringLiteral("deviceScaleFactor"), 1}, {QStringLiteral("mobile"), false}},
                        &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void cleanupTestCase()
    {
        stop(m_chromium);
        m_serve.stop();
    }

    // The demo runs in the page itself: the relay's token goes in as its cookie (as after a first
    // visit to the printed URL), so the page's own URL carries none and the app opens its demo.
    void demoFirstFrameMatchesTheDesktopGolden()
    {
        QString error;
        const QString token = QUrlQuery(m_relayUrl).queryItemValue(QStringLiteral("token"));
        QUrl page = m_relayUrl;
        page.setQuery(QString());
        m_devtools.call(QStringLiteral("Network.setCookie"),
                        {{QStringLiteral("name"), QStringLiteral("slicescope_token")}, {QStringLiteral("value"), token}, {QStringLiteral("url"), page.toString()}},
                        &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));

        // `still`: the page holds the demo's first capture, the one the golden shows (the demo ticks
        // every second; a second capture would add history to the tiles before the screenshot).
        page.setQuery(QStringLiteral("still"));
        QElapsedTimer clock;
        clock.start();
        m_devtools.call(QStringLiteral("Page.navigate"), {{QStringLiteral("url"), page.toString()}}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY2(m_devtools.waitForConsoleLine(QStringLiteral("slicescope: first frame"), kFirstFrameMs),
                 qPrintable(QStringLiteral("no first frame; the console said: ") + m_devtools.consoleLines().join(QStringLiteral(" | "))));
        const qint64 firstFrameMs = clock.elapsed();
        qInfo("browser: first frame %lld ms after navigation", firstFrameMs);

        const QImage actual = m_devtools.screenshot(&error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const QImage golden = QImage(goldenDir() + QStringLiteral("/demo-overview.png")).convertToFormat(QImage::Format_RGB32);
        QVERIFY(!golden.isNull());
        QImage diff;
        const GoldenComparison c = compareToGolden(actual, golden, &diff);
        qInfo("browser: against demo-overview.png: %s", qPrintable(c.message));
        actual.save(QStringLiteral("browser-demo-overview.png")); // what the page showed, to look at
        if (!c.same) {
            if (!diff.isNull())
                diff.save(QStringLiteral("browser-demo-overview.diff.png"));
        }
        QVERIFY2(c.same, qPrintable(c.message + QStringLiteral(" (wrote browser-demo-overview.png and .diff.png)")));
    }

    // A click on a slice's tile in the overview opens it in the slice view. Where the tile is comes
    // from the desktop's own layout of the same window (the page is pixel-identical to it).
    void clickingATileShowsItsSlice()
    {
        const Capture demo = DemoCluster().capture();
        applyLook(*qApp, Theme::light());
        MainWindow window(MainWindow::Mode::Screenshot);
        ScreenshotOptions options;
        QString error;
        QVERIFY2(setUpScreenshotWindow(window, std::make_unique<StaticSource>(demo, options.sourceDescription), options, &error), qPrintable(error));
        window.grab(); // lays the window out at its size, as renderScreenshot() does
        FleetOverview *overview = window.workspace()->overview();
        QVERIFY(window.snapshot() && !window.snapshot()->slices.isEmpty());
        const QString slice = window.snapshot()->slices.first().name;
        const QRect tile = overview->tileRect(slice);
        QVERIFY2(tile.isValid(), qPrintable(slice));
        const QPoint at = overview->mapTo(&window, tile.center());
        qInfo("browser: clicking %s's tile at %d,%d", qPrintable(slice), at.x(), at.y());

        QVERIFY2(m_devtools.click(at, &error), qPrintable(error));
        QVERIFY2(m_devtools.waitForConsoleLine(QStringLiteral("slicescope: showing slice %1").arg(slice), 30000),
                 qPrintable(QStringLiteral("the slice view did not show %1; the console said: %2").arg(slice, m_devtools.consoleLines().join(QStringLiteral(" | ")))));
    }

    // The page opened at the URL `serve` printed reads the relay (same origin, the token in its
    // URL) instead of running its own demo: its first frame comes from the relayed snapshots and
    // shows the same overview (the status line names the relay, so it is left out of the check).
    void relayPageShowsTheRelayedDemo()
    {
        QString error;
        const qsizetype from = m_devtools.consoleLines().size();
        QUrl page = m_relayUrl; // held at the first relayed capture, as the demo page above
        QUrlQuery query(page);
        query.addQueryItem(QStringLiteral("still"), QString());
        page.setQuery(query);
        QElapsedTimer clock;
        clock.start();
        m_devtools.call(QStringLiteral("Page.navigate"), {{QStringLiteral("url"), page.toString(QUrl::FullyEncoded)}}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY2(m_devtools.waitForConsoleLine(QStringLiteral("slicescope: first frame"), kFirstFrameMs, from),
                 qPrintable(QStringLiteral("no first frame through the relay; the console said: ") + m_devtools.consoleLines().mid(from).join(QStringLiteral(" | "))));
        qInfo("browser: first frame through the relay %lld ms after navigation", clock.elapsed());

        const QImage actual = m_devtools.screenshot(&error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        actual.save(QStringLiteral("browser-relay-overview.png"));
        const QImage golden = QImage(goldenDir() + QStringLiteral("/demo-overview.png")).convertToFormat(QImage::Format_RGB32);
        constexpr int kStatusLine = 30; // the bottom rows: "Source: relay ...", the relay demo's own clock
        const QRect above(0, 0, golden.width(), golden.height() - kStatusLine);
        QImage diff;
        const GoldenComparison c = compareToGolden(actual.copy(above), golden.copy(above), &diff);
        qInfo("browser: relayed page against demo-overview.png above the status line: %s", qPrintable(c.message));
        QVERIFY2(c.same, qPrintable(c.message + QStringLiteral(" (wrote browser-relay-overview.png)")));
    }

    // File > Open (Ctrl+O) opens the browser's file picker; the capture picked is read in the page
    // and drawn exactly as the desktop draws it.
    void openingACaptureFileReadsItInThePage()
    {
        QString error;
        QUrl page = m_relayUrl;
        page.setQuery(QString()); // the demo page (the token is in its cookie since the first test)
        qsizetype from = m_devtools.consoleLines().size();
        m_devtools.call(QStringLiteral("Page.navigate"), {{QStringLiteral("url"), page.toString()}}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(m_devtools.waitForConsoleLine(QStringLiteral("slicescope: first frame"), kFirstFrameMs, from));

        m_devtools.call(QStringLiteral("Page.setInterceptFileChooserDialog"), {{QStringLiteral("enabled"), true}}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        // A click on the status line gives the canvas the keyboard focus; then Ctrl+O.
        QVERIFY2(m_devtools.click(QPoint(1100, 790), &error), qPrintable(error));
        const qsizetype events = m_devtools.eventCount();
        QVERIFY2(m_devtools.key(QStringLiteral("o"), QStringLiteral("KeyO"), 'O', 2 /* Ctrl */, &error), qPrintable(error));
        QJsonObject chooser;
        QVERIFY2(m_devtools.waitForEvent(QStringLiteral("Page.fileChooserOpened"), &chooser, 30000, events), "Ctrl+O opened no file picker");
        const QString name = QStringLiteral("mixed-ray-kube.slicescope.json");
        const QString path = QStringLiteral(SLICESCOPE_TEST_DATA "/captures/") + name;
        from = m_devtools.consoleLines().size();
        m_devtools.call(QStringLiteral("DOM.setFileInputFiles"),
                        {{QStringLiteral("files"), QJsonArray{path}}, {QStringLiteral("backendNodeId"), chooser.value(QLatin1String("backendNodeId"))}},
                        &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY2(m_devtools.waitForConsoleLine(QStringLiteral("slicescope: source: capture ") + name, 30000, from),
                 qPrintable(QStringLiteral("the page did not show the capture; the console said: ") + m_devtools.consoleLines().mid(from).join(QStringLiteral(" | "))));

        const QImage actual = m_devtools.screenshot(&error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        actual.save(QStringLiteral("browser-capture.png"));
        const CaptureReadResult read = readCaptureFile(path);
        QVERIFY2(read.ok(), qPrintable(read.error));
        ScreenshotOptions options;
        options.sourceDescription = QStringLiteral("capture ") + name;
        const QImage desktop = renderScreenshot(read.captures.last(), options, &error);
        QVERIFY2(!desktop.isNull(), qPrintable(error));
        QImage diff;
        const GoldenComparison c = compareToGolden(actual, desktop, &diff);
        qInfo("browser: %s opened in the page against the desktop's rendering: %s", qPrintable(name), qPrintable(c.message));
        if (!c.same)
            diff.save(QStringLiteral("browser-capture.diff.png"));
        QVERIFY2(c.same, qPrintable(c.message + QStringLiteral(" (wrote browser-capture.png and .diff.png)")));
    }

    // A relay round trip: the page on the relay's URL reserves a v6e 4x4 slice through its composer
    // the way a person does (Ctrl+R, a name typed, Review, Reserve); the clicks land where the
    // desktop lays out the same window on the same relay. The group must then be in the demo behind
    // the relay (`slicescope inspect --relay`, a process of its own) and the page must say it drew
    // a snapshot showing it.
    void reservingInThePageChangesTheRelayedDemo()
    {
        QString error;
        qsizetype from = m_devtools.consoleLines().size();
        m_devtools.call(QStringLiteral("Page.navigate"), {{QStringLiteral("url"), m_relayUrl.toString(QUrl::FullyEncoded)}}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY2(m_devtools.waitForConsoleLine(QStringLiteral("slicescope: first frame"), kFirstFrameMs, from),
                 qPrintable(QStringLiteral("no first frame through the relay; the console said: ") + m_devtools.consoleLines().mid(from).join(QStringLiteral(" | "))));

        // The desktop's window on the same relay, with its composer open: where the page's fields are.
        applyLook(*qApp, Theme::light());
        MainWindow window(MainWindow::Mode::Screenshot);
        ScreenshotOptions options;
        QVERIFY2(setUpScreenshotWindow(window, std::make_unique<RelaySource>(m_relayUrl), options, &error), qPrintable(error));
        QVERIFY2(QTest::qWaitFor([&] { return window.snapshot() != nullptr; }, kStartMs), "the desktop window got no snapshot from the relay");
        const QString name = QStringLiteral("rt-%1").arg(QDateTime::currentMSecsSinceEpoch() % 1000000);
        QVERIFY(window.snapshot()->placementGroupIndex(name) < 0);
        QAction *reserve = nullptr;
        for (QAction *a : window.findChildren<QAction *>())
            if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_R))
                reserve = a;
        QVERIFY2(reserve, "no Ctrl+R action");
        reserve->trigger();
        window.grab();
        auto *composer = window.findChild<SliceComposer *>();
        QVERIFY(composer);
        auto *nameEdit = composer->findChild<QLineEdit *>(QStringLiteral("name"));
        auto *review = composer->findChild<QPushButton *>(QStringLiteral("review"));
        auto *confirm = composer->findChild<QPushButton *>(QStringLiteral("confirm"));
        QVERIFY(nameEdit && review && confirm);
        // The form down to the name field: what the page must show before anything is typed.
        const QRect form(composer->mapTo(&window, QPoint(0, 0)), QPoint(composer->mapTo(&window, QPoint(composer->width() - 1, 0)).x(),
                                                                        nameEdit->mapTo(&window, QPoint(0, nameEdit->height() - 1)).y()));
        const QImage desktopForm = window.grab().toImage().convertToFormat(QImage::Format_RGB32).copy(form);
        const QPoint nameAt = nameEdit->mapTo(&window, nameEdit->rect().center());
        nameEdit->setText(name);
        window.grab();
        QVERIFY2(review->isEnabled(), qPrintable(QStringLiteral("the desktop's composer cannot review: ") + composer->messageText() + review->toolTip()));
        const QPoint reviewAt = review->mapTo(&window, review->rect().center());
        review->click(); // only opens the review: nothing is sent
        window.grab();
        QVERIFY(confirm->isVisibleTo(&window) && confirm->isEnabled());
        const QPoint confirmAt = confirm->mapTo(&window, confirm->rect().center());
        qInfo("browser: composer on the page: name field at %d,%d, Review at %d,%d, Reserve at %d,%d", nameAt.x(), nameAt.y(),
              reviewAt.x(), reviewAt.y(), confirmAt.x(), confirmAt.y());

        auto click = [&](QPoint at) {
            return m_devtools.click(at, &error);
        };
        auto key = [&](const QString &text, const QString &code, int virtualKey, int modifiers) {
            return m_devtools.key(text, code, virtualKey, modifiers, &error);
        };
        auto pageShot = [&] {
            return m_devtools.screenshot(&error);
        };

        // Ctrl+R after a click on the status line (the canvas takes the keyboard focus): the
        // composer docks on the right, laid out as on the desktop.
        QVERIFY2(click(QPoint(1100, 790)), qPrintable(error));
        QVERIFY2(key(QStringLiteral("r"), QStringLiteral("KeyR"), 'R', 2 /* Ctrl */), qPrintable(error));
        GoldenComparison formShown;
        QImage shot, formDiff;
        const bool composerShown = QTest::qWaitFor([&] {
            shot = pageShot();
            formShown = compareToGolden(shot.copy(form), desktopForm, &formDiff);
            return formShown.same;
        },
                                                   30000);
        if (!composerShown)
            shot.save(QStringLiteral("browser-composer.png"));
        QVERIFY2(composerShown, qPrintable(QStringLiteral("the page did not show the composer as the desktop does (wrote browser-composer.png): ") + formShown.message));

        QVERIFY2(click(nameAt), qPrintable(error));
        for (const QChar c : name) {
            const QString text(c);
            const QString code = c.isDigit() ? QStringLiteral("Digit") + text : c == u'-' ? QStringLiteral("Minus")
                                                                                          : QStringLiteral("Key") + text.toUpper();
            QVERIFY2(key(text, code, c == u'-' ? 189 : c.toUpper().unicode(), 0), qPrintable(error));
        }
        from = m_devtools.consoleLines().size();
        QVERIFY2(click(reviewAt), qPrintable(error));
        QVERIFY2(m_devtools.waitForConsoleLine(QStringLiteral("slicescope: review: Reserve"), 30000, from),
                 qPrintable(QStringLiteral("the page's composer opened no review; the console said: ") + m_devtools.consoleLines().mid(from).join(QStringLiteral(" | "))));

        // Reserve: from here the figure for the round trip.
        from = m_devtools.consoleLines().size();
        QElapsedTimer clock;
        clock.start();
        QVERIFY2(click(confirmAt), qPrintable(error));
        const QString created = QStringLiteral("slicescope: placement group %1: CREATED").arg(name);
        qint64 desktopSawItMs = -1;
        const bool shown = QTest::qWaitFor([&] {
            if (desktopSawItMs < 0 && window.snapshot() && window.snapshot()->placementGroupIndex(name) >= 0)
                desktopSawItMs = clock.elapsed();
            return m_devtools.consoleLines().indexOf(created, from) >= 0;
        },
                                           60000);
        const qint64 pageShowedItMs = clock.elapsed();
        QVERIFY2(shown, qPrintable(QStringLiteral("the page never drew %1 CREATED; the console said: %2").arg(name, m_devtools.consoleLines().mid(from).join(QStringLiteral(" | ")))));
        qInfo("browser: relay round trip: Reserve clicked, the page drew %s CREATED %lld ms later (a desktop RelaySource on the same relay first saw the group after %lld ms)",
              qPrintable(name), pageShowedItMs, desktopSawItMs);
        pageShot().save(QStringLiteral("browser-relay-reserved.png")); // the overview with the group's slice highlighted, to look at

        // The demo behind the relay has it: asked by a process of its own.
        const CliRun inspect = runCli({QStringLiteral("inspect"), QStringLiteral("--relay"), m_relayUrl.toString(QUrl::FullyEncoded), QStringLiteral("--json")},
                                      {}, {}, kStartMs);
        QVERIFY2(inspect.exitCode == 0, qPrintable(QString::fromUtf8(inspect.err)));
        QString state;
        for (const QJsonValue &g : inspect.json().value(QLatin1String("placementGroups")).toArray())
            if (g.toObject().value(QLatin1String("name")).toString() == name)
                state = g.toObject().value(QLatin1String("state")).toString();
        QVERIFY2(state == QLatin1String("CREATED"), qPrintable(QStringLiteral("`inspect --relay` says %1 is \"%2\"").arg(name, state)));
    }

private:
    QString m_bundle;
    RelayProcess m_serve;
    QProcess m_chromium;
    QTemporaryDir m_profile;
    QUrl m_relayUrl;
    DevTools m_devtools;
};

int main(int argc, char **argv)
{
    pinRenderingEnvironment(true);
    QApplication app(argc, argv);
    TestBrowser test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_browser.moc"
