// SPDX-License-Identifier: GPL-3.0-or-later
// The drawn icons (widgets/icons.h): every one paints, in the palette's colours, crisp at the
// device pixel ratio, and a status icon in its status colour of the theme in use.

#include "icons.h"
#include "look.h"

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <QTest>

using namespace slicescope;

namespace {

constexpr IconKind kAll[] = {
    IconKind::Overview,
    IconKind::Slice,
    IconKind::Tables,
    IconKind::History,
    IconKind::Timeline,
    IconKind::Problems,
    IconKind::JobLog,
    IconKind::WhyPending,
    IconKind::Reserve,
    IconKind::Release,
    IconKind::Scale,
    IconKind::Search,
    IconKind::Copy,
    IconKind::OpenExternal,
    IconKind::RayDashboard,
    IconKind::CloudConsole,
    IconKind::Open,
    IconKind::Save,
    IconKind::Export,
    IconKind::Live,
    IconKind::Keyboard,
    IconKind::Ready,
    IconKind::Reserved,
    IconKind::Degraded,
    IconKind::Provisioning,
    IconKind::Dead,
};

// How many pixels are at least half opaque, and the colour most of them have.
struct Ink {
    int pixels = 0;
    QColor dominant;
};

Ink inkOf(const QImage &image)
{
    Ink ink;
    QHash<QRgb, int> counts;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const QRgb p = image.pixel(x, y);
            if (qAlpha(p) >= 128) {
                ++ink.pixels;
                if (qAlpha(p) == 255)
                    ++counts[p & 0xffffff];
            }
        }
    int best = 0;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it)
        if (it.value() > best) {
            best = it.value();
            ink.dominant = QColor::fromRgb(it.key());
        }
    return ink;
}

QImage render(const QIcon &icon, int side, qreal dpr, QIcon::Mode mode = QIcon::Normal)
{
    QPixmap pm = icon.pixmap(QSize(side, side), dpr, mode);
    return pm.toImage().convertToFormat(QImage::Format_ARGB32);
}

} // namespace

class TestIcons : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { applyLook(*qApp, Theme::light()); }

    void everyIconPaints()
    {
        QSet<QByteArray> shapes;
        for (IconKind kind : kAll) {
            const QImage image = render(icon(kind), 24, 1.0);
            const Ink ink = inkOf(image);
            // Some ink, and not a filled square: a shape.
            QVERIFY2(ink.pixels >= 20 && ink.pixels <= 24 * 24 * 3 / 4, qPrintable(QString::number(int(kind))));
            shapes.insert(QByteArray(reinterpret_cast<const char *>(image.constBits()), image.sizeInBytes()));
        }
        QCOMPARE(shapes.size(), int(std::size(kAll))); // no two icons are the same picture
        // To look at them: SLICESCOPE_SAVE_GRABS=DIR writes the set at 48 px, light and dark.
        if (const QString dir = qEnvironmentVariable("SLICESCOPE_SAVE_GRABS"); !dir.isEmpty()) {
            QImage sheet(int(std::size(kAll)) * 56, 112, QImage::Format_ARGB32);
            QPainter p(&sheet);
            p.fillRect(0, 0, sheet.width(), 56, Theme::light().panel);
            p.fillRect(0, 56, sheet.width(), 56, Theme::dark().panel);
            for (int i = 0; i < int(std::size(kAll)); ++i) {
                const auto ink = [kind = kAll[i]](const Theme &t) {
                    if (kind == IconKind::Dead)
                        return t.dead;
                    return kind >= IconKind::Ready ? sliceStatusColor(SliceStatus(int(kind) - int(IconKind::Ready)), t) : t.text;
                };
                paintIcon(p, QRectF(i * 56 + 4, 4, 48, 48), kAll[i], ink(Theme::light()));
                paintIcon(p, QRectF(i * 56 + 4, 60, 48, 48), kAll[i], ink(Theme::dark()));
            }
            p.end();
            sheet.save(dir + QStringLiteral("/icons.png"));
        }
    }

    void followsThePalette()
    {
        applyLook(*qApp, Theme::light());
        QCOMPARE(inkOf(render(icon(IconKind::Tables), 48, 1.0)).dominant, Theme::light().text);
        applyLook(*qApp, Theme::dark()); // the same QIcon, made before: it paints in the new colours
        const QIcon tables = icon(IconKind::Tables);
        QCOMPARE(inkOf(render(tables, 48, 1.0)).dominant, Theme::dark().text);
        // Disabled: fainter than the text, towards the window colour.
        const QColor disabled = inkOf(render(tables, 48, 1.0, QIcon::Disabled)).dominant;
        QVERIFY(disabled != Theme::dark().text);
        QVERIFY(std::abs(disabled.lightness() - Theme::dark().window.lightness()) < std::abs(Theme::dark().text.lightness() - Theme::dark().window.lightness()));
        applyLook(*qApp, Theme::light());
    }

    void statusIconsHaveTheirStatusColour()
    {
        for (const Theme &theme : {Theme::light(), Theme::dark()}) {
            applyLook(*qApp, theme);
            for (SliceStatus s : {SliceStatus::Ready, SliceStatus::Reserved, SliceStatus::Degraded, SliceStatus::Provisioning})
                QCOMPARE(inkOf(render(statusIcon(s), 48, 1.0)).dominant, sliceStatusColor(s, theme));
        }
        applyLook(*qApp, Theme::light());
    }

    // HiDPI: the pixmap has the device's pixels, drawn at that size (more ink), not scaled up.
    void crispAtTheDevicePixelRatio()
    {
        const QPixmap one = icon(IconKind::Slice).pixmap(QSize(24, 24), 1.0);
        const QPixmap two = icon(IconKind::Slice).pixmap(QSize(24, 24), 2.0);
        QCOMPARE(one.size(), QSize(24, 24));
        QCOMPARE(two.size(), QSize(48, 48));
        QCOMPARE(two.devicePixelRatio(), 2.0);
        // Scaled-up pixels would repeat in 2x2 blocks; a drawn image does not.
        const QImage image = two.toImage().convertToFormat(QImage::Format_ARGB32);
        int differing = 0;
        for (int y = 0; y < 48; y += 2)
            for (int x = 0; x < 48; x += 2)
                if (image.pixel(x, y) != image.pixel(x + 1, y) || image.pixel(x, y) != image.pixel(x, y + 1))
                    ++differing;
        QVERIFY2(differing > 20, qPrintable(QString::number(differing)));
    }
};

QTEST_MAIN(TestIcons)
#include "tst_icons.moc"
