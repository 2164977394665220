// SPDX-License-Identifier: GPL-3.0-or-later
// The one inline confirmation UI on its own: the review panel (Confirm gated by the host and by a
// typed name, Confirm and Cancel signals, the progress log, the message bar's status signal, the
// panel hidden while it has nothing to show) and the message bar, whose colours are the theme's
// (look.h), drawn and checked pixel by pixel.

#include "look.h"
#include "messagebar.h"
#include "reviewpanel.h"

#include <QApplication>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QVBoxLayout>

using namespace slicescope;

namespace {

// A host as the scale dialog and the composer are: the panel under something else, shown.
struct Rig {
    QWidget window;
    ReviewPanel *panel = nullptr;
    Rig()
    {
        auto *layout = new QVBoxLayout(&window);
        layout->addWidget(new QLabel(QStringLiteral("the form"), &window));
        panel = new ReviewPanel(&window);
        layout->addWidget(panel, 1);
        layout->addStretch(0);
        window.resize(420, 520);
        window.show();
    }
    template<typename T>
    T *find(const char *name) const
    {
        T *child = window.findChild<T *>(QLatin1String(name));
        if (!child)
            qWarning("no child named %s", name);
        return child;
    }
    QPushButton *confirm() const { return find<QPushButton>("confirm"); }
    QPushButton *cancel() const { return find<QPushButton>("cancel"); }
    QLineEdit *typeName() const { return find<QLineEdit>("typeName"); }
};

// The colour drawn at `at` (widget coordinates).
QColor pixel(QWidget *widget, QPoint at)
{
    return widget->grab().toImage().pixelColor(at);
}

} // namespace

class TestReviewPanel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void hiddenUntilItHasSomethingToShow()
    {
        Rig host;
        QVERIFY(host.panel->isHidden());
        QVERIFY(!host.confirm()->isEnabled());
        QVERIFY(host.panel->messageText().isEmpty());
        host.panel->showMessage(MessageBar::Kind::Info, QStringLiteral("Reserving is off: a recording"));
        QVERIFY(host.panel->isVisible());
        QVERIFY(!host.find<QWidget>("reviewArea")->isVisible());
        host.panel->hideMessage();
        QVERIFY(host.panel->isHidden());
        QVERIFY(host.panel->messageText().isEmpty());
    }

    void openShowsTitleTextAndLabel()
    {
        Rig host;
        host.panel->openReview(QStringLiteral("<b>Review:</b> 4 -> 5"), QStringLiteral("What will change:\n  replicas 4 -> 5"),
                               QStringLiteral("Scale to 5 slices"));
        QVERIFY(host.panel->isOpen());
        QVERIFY(host.find<QWidget>("reviewArea")->isVisible());
        QCOMPARE(host.find<QLabel>("reviewTitle")->text(), QStringLiteral("<b>Review:</b> 4 -> 5"));
        QCOMPARE(host.find<QPlainTextEdit>("reviewText")->toPlainText(), QStringLiteral("What will change:\n  replicas 4 -> 5"));
        QCOMPARE(host.confirm()->text(), QStringLiteral("Scale to 5 slices"));
        QCOMPARE(host.panel->confirmLabel(), QStringLiteral("Scale to 5 slices"));
        QVERIFY(host.typeName()->isHidden());
        QVERIFY(host.panel->requiredName().isEmpty());
        // The open review takes the spare height; the form above keeps its own.
        auto *area = host.find<QWidget>("reviewArea");
        QTRY_VERIFY2(area->height() > 400, qPrintable(QString::number(area->height()))); // of 520, once laid out
    }

    void confirmNeedsTheHostsLeave()
    {
        Rig host;
        QSignalSpy confirmed(host.panel, &ReviewPanel::confirmed);
        host.panel->openReview(QStringLiteral("t"), QStringLiteral("x"), QStringLiteral("Reserve"));
        // Open but not allowed (the host has not said yes): nothing to click.
        QVERIFY(!host.confirm()->isEnabled());
        QTest::mouseClick(host.confirm(), Qt::LeftButton);
        QCOMPARE(confirmed.count(), 0);
        host.panel->setConfirmAllowed(true);
        QVERIFY(host.confirm()->isEnabled());
        QVERIFY(host.panel->isConfirmEnabled());
        QTest::mouseClick(host.confirm(), Qt::LeftButton);
        QCOMPARE(confirmed.count(), 1);
        // Withdrawn with a reason: the button says why, and clicks do nothing.
        host.panel->setConfirmAllowed(false, QStringLiteral("an action is in progress"));
        QVERIFY(!host.confirm()->isEnabled());
        QCOMPARE(host.confirm()->toolTip(), QStringLiteral("an action is in progress"));
        QTest::mouseClick(host.confirm(), Qt::LeftButton);
        QCOMPARE(confirmed.count(), 1);
        // Allowed, but closed: still off.
        host.panel->setConfirmAllowed(true);
        host.panel->closeReview();
        QVERIFY(!host.confirm()->isEnabled());
        QVERIFY(!host.panel->isConfirmEnabled());
    }

    void typedNameGatesConfirm()
    {
        Rig host;
        QSignalSpy confirmed(host.panel, &ReviewPanel::confirmed);
        host.panel->openReview(QStringLiteral("<b>Release placement group \"llm-train\"</b>"), QStringLiteral("x"), QStringLiteral("Release"));
        host.panel->setConfirmAllowed(true);
        host.panel->requireTypedName(QStringLiteral("llm-train"), QStringLiteral("Type its name, <b>llm-train</b>, to release it."));
        QCOMPARE(host.panel->requiredName(), QStringLiteral("llm-train"));
        QVERIFY(host.typeName()->isVisible());
        QVERIFY(host.typeName()->text().isEmpty());
        QVERIFY(!host.confirm()->isEnabled());
        QTest::keyClicks(host.typeName(), QStringLiteral("llm-trai"));
        QVERIFY(!host.confirm()->isEnabled()); // a prefix is not the name
        QTest::mouseClick(host.confirm(), Qt::LeftButton);
        QCOMPARE(confirmed.count(), 0);
        QTest::keyClick(host.typeName(), Qt::Key_N);
        QVERIFY(host.confirm()->isEnabled());
        QTest::keyClick(host.typeName(), Qt::Key_X);
        QVERIFY(!host.confirm()->isEnabled()); // nor is a longer one
        QTest::keyClick(host.typeName(), Qt::Key_Backspace);
        QVERIFY(host.confirm()->isEnabled());
        // The host's no wins over a typed name.
        host.panel->setConfirmAllowed(false);
        QVERIFY(!host.confirm()->isEnabled());
        host.panel->setConfirmAllowed(true);
        QTest::mouseClick(host.confirm(), Qt::LeftButton);
        QCOMPARE(confirmed.count(), 1);
        // The next review asks for no name, and a typed one is gone with the last review.
        host.panel->openReview(QStringLiteral("t"), QStringLiteral("x"), QStringLiteral("Reserve"));
        QVERIFY(host.panel->requiredName().isEmpty());
        QVERIFY(host.typeName()->isHidden());
        QVERIFY(host.typeName()->text().isEmpty());
        QVERIFY(host.confirm()->isEnabled());
    }

    void cancelClosesAndSignals()
    {
        Rig host;
        QSignalSpy cancelled(host.panel, &ReviewPanel::cancelled);
        QSignalSpy confirmed(host.panel, &ReviewPanel::confirmed);
        host.panel->openReview(QStringLiteral("t"), QStringLiteral("x"), QStringLiteral("Reserve"));
        host.panel->setConfirmAllowed(true);
        QTest::mouseClick(host.cancel(), Qt::LeftButton);
        QCOMPARE(cancelled.count(), 1);
        QCOMPARE(confirmed.count(), 0);
        QVERIFY(!host.panel->isOpen());
        QVERIFY(!host.find<QWidget>("reviewArea")->isVisible());
        QVERIFY(!host.confirm()->isEnabled());
        QVERIFY(host.panel->isHidden()); // nothing else to show
    }

    void progressLog()
    {
        Rig host;
        auto *log = host.find<QPlainTextEdit>("progressLog");
        QVERIFY(log->isHidden());
        host.panel->startLog(QStringLiteral("sent: scale 4 -> 5"));
        host.panel->appendLog(QStringLiteral("patched RayCluster ml/tpu-team"));
        host.panel->appendLog(QStringLiteral("done: 5 of 5 slices ready"));
        QVERIFY(log->isVisible());
        QVERIFY(host.panel->isVisible());
        const QString expected = QStringLiteral("sent: scale 4 -> 5\npatched RayCluster ml/tpu-team\ndone: 5 of 5 slices ready");
        QCOMPARE(log->toPlainText(), expected);
        QCOMPARE(host.panel->logText(), expected);
        QVERIFY(log->isReadOnly());
        // The next action starts its own log.
        host.panel->startLog(QStringLiteral("sent: scale 5 -> 4"));
        QCOMPARE(host.panel->logText(), QStringLiteral("sent: scale 5 -> 4"));
        // A log stays in sight while a review opens and closes.
        host.panel->openReview(QStringLiteral("t"), QStringLiteral("x"), QStringLiteral("Reserve"));
        host.panel->closeReview();
        QVERIFY(log->isVisible());
    }

    void messagesTellTheStatusBarOfActionsOnly()
    {
        Rig host;
        QSignalSpy status(host.panel, &ReviewPanel::statusMessage);
        host.panel->showMessage(MessageBar::Kind::Info, QStringLiteral("choose again"));
        QCOMPARE(status.count(), 0);
        QCOMPARE(host.panel->messageText(), QStringLiteral("choose again"));
        host.panel->showMessage(MessageBar::Kind::Warning, QStringLiteral("Scaling ml/tpu-team/v6e-4x4..."));
        host.panel->showMessage(MessageBar::Kind::Success, QStringLiteral("done"));
        host.panel->showMessage(MessageBar::Kind::Error, QStringLiteral("Not applied"));
        QCOMPARE(status.count(), 3);
        QCOMPARE(status.at(0).at(0).toString(), QStringLiteral("Scaling ml/tpu-team/v6e-4x4..."));
        QCOMPARE(status.at(2).at(0).toString(), QStringLiteral("Not applied"));
        auto *bar = host.find<MessageBar>("messageBar");
        QVERIFY(bar);
        QCOMPARE(bar->kind(), MessageBar::Kind::Error);
        QCOMPARE(bar->text(), QStringLiteral("Not applied"));
    }

    void messageColoursAreTheThemes_data()
    {
        QTest::addColumn<QString>("theme");
        QTest::addColumn<int>("kind");
        for (const char *theme : {"light", "dark"}) {
            QTest::addRow("%s info", theme) << QString::fromLatin1(theme) << int(MessageBar::Kind::Info);
            QTest::addRow("%s warning", theme) << QString::fromLatin1(theme) << int(MessageBar::Kind::Warning);
            QTest::addRow("%s error", theme) << QString::fromLatin1(theme) << int(MessageBar::Kind::Error);
            QTest::addRow("%s success", theme) << QString::fromLatin1(theme) << int(MessageBar::Kind::Success);
        }
    }
    void messageColoursAreTheThemes()
    {
        QFETCH(QString, theme);
        QFETCH(int, kind);
        const Theme t = Theme::named(theme);
        const auto k = MessageBar::Kind(kind);
        // look.h's roles, one per kind.
        const MessageColors &expected = k == MessageBar::Kind::Info      ? t.info
                                        : k == MessageBar::Kind::Warning ? t.warning
                                        : k == MessageBar::Kind::Error   ? t.error
                                                                         : t.success;
        QCOMPARE(&MessageBar::colorsFor(t, k), &expected);
        MessageBar bar;
        bar.setTheme(t);
        bar.showMessage(k, QStringLiteral("Withdrawn, nothing was sent"));
        bar.resize(300, 40);
        QVERIFY(bar.styleSheet().isEmpty()); // the theme's colours, not a style sheet's
        QCOMPARE(bar.colors().background, expected.background);
        QCOMPARE(bar.palette().color(QPalette::WindowText), expected.text);
        QCOMPARE(bar.palette().color(QPalette::Disabled, QPalette::WindowText), expected.text);
        // Drawn: the border on the edge, the background inside, and text in the text colour.
        QCOMPARE(pixel(&bar, {0, 0}), expected.border);
        QCOMPARE(pixel(&bar, {299, 39}), expected.border);
        QCOMPARE(pixel(&bar, {3, 3}), expected.background);
        QCOMPARE(pixel(&bar, {296, 36}), expected.background);
        const QImage image = bar.grab().toImage();
        bool textDrawn = false;
        for (int y = 0; y < image.height() && !textDrawn; ++y)
            for (int x = 0; x < image.width() && !textDrawn; ++x)
                textDrawn = image.pixelColor(x, y) == expected.text;
        QVERIFY2(textDrawn, "no pixel in the text colour");
    }

    void messageColoursFollowTheThemeGiven()
    {
        // A theme with other message colours: the bar draws those, so none is its own.
        Theme t = Theme::light();
        t.error = {QColor(0x102030), QColor(0xfafafa), QColor(0x00ff00)};
        Rig host;
        host.panel->setTheme(t);
        host.panel->showMessage(MessageBar::Kind::Error, QStringLiteral("Not applied"));
        auto *bar = host.find<MessageBar>("messageBar");
        QCOMPARE(pixel(bar, {0, 0}), QColor(0x00ff00));
        QCOMPARE(pixel(bar, {3, 3}), QColor(0x102030));
        QCOMPARE(bar->palette().color(QPalette::WindowText), QColor(0xfafafa));
        // A theme switch repaints a message already shown.
        host.panel->setTheme(Theme::light());
        QCOMPARE(pixel(bar, {0, 0}), Theme::light().error.border);
        // The message colours of the light theme, as look.cpp defines them.
        QCOMPARE(Theme::light().info.background, QColor(0xe8eef7));
        QCOMPARE(Theme::light().warning.border, QColor(0xd9b74a));
        QCOMPARE(Theme::light().error.text, QColor(0x4a1010));
        QCOMPARE(Theme::light().success.background, QColor(0xe3f4e6));
    }
};

int main(int argc, char **argv)
{
    pinRenderingEnvironment(true);
    QApplication app(argc, argv);
    applyLook(app, Theme::light());
    TestReviewPanel test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_reviewpanel.moc"
