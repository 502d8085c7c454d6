package dev.verbatim.bench.harness;

import javax.imageio.ImageIO;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * What the suites' plots share (Java2D, headless, no dependency): the titled canvas, the PNG file,
 * the time labels of a log axis. Each suite draws its own panels on the canvas.
 */
public final class Plots {
    private Plots() {}

    /** A new RGB image of {@code w} by {@code h} pixels, with AWT headless (no display needed). */
    public static BufferedImage image(int w, int h) {
        System.setProperty("java.awt.headless", "true");
        return new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    }

    /** A white, anti-aliased canvas with the figure's title ({@code title (mode run, CPUs, JDK)}). */
    public static Graphics2D canvas(BufferedImage img, String title, String mode) {
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, img.getWidth(), img.getHeight());
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 17));
        g.drawString(String.format(Locale.ROOT, "%s (%s run, %d CPUs, JDK %s)", title, mode,
                Runtime.getRuntime().availableProcessors(), Runtime.version().feature()), 30, 28);
        return g;
    }

    /** Writes {@code img} as a PNG at {@code file}, creating its directory. */
    public static void save(BufferedImage img, Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        if (!ImageIO.write(img, "png", file.toFile())) {
            throw new IOException("no PNG writer");
        }
    }

    /**
     * A log time axis on the left of the panel at ({@code x0}, {@code y0}), {@code w} by {@code h}: a light
     * line across and a time label at every power of ten from 10^{@code ly0} to 10^{@code ly1}, placed by
     * {@code py} (a time to its y).
     */
    public static void logTimeGrid(Graphics2D g, int x0, int w, double ly0, double ly1, java.util.function.DoubleUnaryOperator py) {
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        java.awt.FontMetrics fm = g.getFontMetrics();
        for (int e = (int) ly0; e <= (int) ly1; e++) {
            int yy = (int) Math.round(py.applyAsDouble(Math.pow(10, e)));
            g.setColor(new Color(0xdddddd));
            g.drawLine(x0 + 1, yy, x0 + w - 1, yy);
            g.setColor(Color.BLACK);
            String t = timeLabel(Math.pow(10, e));
            g.drawString(t, x0 - 8 - fm.stringWidth(t), yy + 4);
        }
    }

    /** A time for an axis: {@code 500 ns}, {@code 12 us}, {@code 3 ms}. */
    public static String timeLabel(double ns) {
        return axisLabel(ns, "ns", "us", "ms");
    }

    /** A size for an axis: {@code 64 B}, {@code 8 kB}, {@code 1 MB} (powers of 1000). */
    public static String sizeLabel(double bytes) {
        return axisLabel(bytes, "B", "kB", "MB");
    }

    /** {@code v} in whole {@code unit}s, thousands of them ({@code kilo}) or millions ({@code mega}). */
    private static String axisLabel(double v, String unit, String kilo, String mega) {
        if (v >= 1e6) {
            return String.format(Locale.ROOT, "%.0f %s", v / 1e6, mega);
        }
        if (v >= 1e3) {
            return String.format(Locale.ROOT, "%.0f %s", v / 1e3, kilo);
        }
        return String.format(Locale.ROOT, "%.0f %s", v, unit);
    }
}
