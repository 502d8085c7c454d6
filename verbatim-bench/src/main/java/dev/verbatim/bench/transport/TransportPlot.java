package dev.verbatim.bench.transport;

import dev.verbatim.bench.harness.FloorCase;
import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.Plots;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.geom.AffineTransform;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The figure of a run as a PNG, drawn with Java2D (headless, no dependency), like the papers'
 * Figures 3 and 6: (a) round-trip p50 against message size, log-log, one line per contender and
 * medium; (b) one-way streaming bandwidth against message size, log size, linear MB/s.
 */
public final class TransportPlot {
    private TransportPlot() {}

    private static final int W = 1400;
    private static final int H = 600;
    private static final Color[] COLORS = {
        new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e),
        new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x17becf)};

    /** One line of a panel. */
    record Series(String label, double[] x, double[] y) {}

    static void write(TransportBench.Run run, Path file) throws IOException {
        List<Series> rtt = new ArrayList<>();
        for (TransportBench.RttResult r : run.rtt()) {
            if (r.ok() && !r.bySize().isEmpty()) {
                double[] x = r.bySize().keySet().stream().mapToDouble(Integer::doubleValue).toArray();
                double[] y = r.bySize().keySet().stream().mapToDouble(r::p50).toArray();
                rtt.add(new Series(label(r.medium(), r.name()), x, y));
            }
        }
        List<Series> bw = new ArrayList<>();
        for (TransportBench.BwResult r : run.bw()) {
            if (r.ok() && !r.bySize().isEmpty()) {
                double[] x = r.bySize().keySet().stream().mapToDouble(Integer::doubleValue).toArray();
                double[] y = r.bySize().keySet().stream().mapToDouble(r::median).toArray();
                bw.add(new Series(label(r.medium(), r.name()), x, y));
            }
        }
        BufferedImage img = Plots.image(W, H);
        Graphics2D g = Plots.canvas(img, "Verbatim transport benchmark", run.mode());
        try {
            List<String> names = new ArrayList<>();
            rtt.forEach(s -> names.add(s.label()));
            bw.forEach(s -> {
                if (!names.contains(s.label())) {
                    names.add(s.label());
                }
            });
            panel(g, 80, 60, 560, 460, "(a) Round trip (p50) vs message size", "message size (bytes)",
                    "round trip (ns)", rtt, names, true);
            panel(g, 790, 60, 560, 460, "(b) One-way streaming bandwidth vs message size", "message size (bytes)",
                    "bandwidth (MB/s)", bw, names, false);
        } finally {
            g.dispose();
        }
        Plots.save(img, file);
    }

    static String label(Medium m, String name) {
        if (m == Medium.TCP && name.equals(FloorCase.FLOOR)) {
            return "tcp floor (raw NIO)";
        }
        return m.key() + " " + name;
    }

    private static Color color(List<String> names, String label) {
        return COLORS[Math.max(0, names.indexOf(label)) % COLORS.length];
    }

    private static void panel(Graphics2D g, int x0, int y0, int w, int h, String title, String xLabel, String yLabel,
                              List<Series> series, List<String> names, boolean logY) {
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        g.setColor(Color.BLACK);
        g.drawString(title, x0, y0 - 8);
        if (series.isEmpty()) {
            g.drawString("(no data)", x0 + w / 2 - 30, y0 + h / 2);
            return;
        }
        double xMin = Double.MAX_VALUE;
        double xMax = 0;
        double yMin = Double.MAX_VALUE;
        double yMax = 0;
        for (Series s : series) {
            for (int i = 0; i < s.x().length; i++) {
                xMin = Math.min(xMin, s.x()[i]);
                xMax = Math.max(xMax, s.x()[i]);
                if (s.y()[i] > 0 && Double.isFinite(s.y()[i])) {
                    yMin = Math.min(yMin, s.y()[i]);
                    yMax = Math.max(yMax, s.y()[i]);
                }
            }
        }
        double lx0 = Math.floor(Math.log10(xMin));
        double lx1 = Math.ceil(Math.log10(xMax));
        double ly0;
        double ly1;
        if (logY) {
            ly0 = Math.floor(Math.log10(yMin));
            ly1 = Math.ceil(Math.log10(yMax));
        } else {
            ly0 = 0;
            ly1 = niceCeil(yMax * 1.05);
        }
        final double fx0 = lx0;
        final double fx1 = lx1;
        final double fy0 = ly0;
        final double fy1 = ly1;
        java.util.function.DoubleUnaryOperator px = v -> x0 + (Math.log10(v) - fx0) / (fx1 - fx0) * w;
        java.util.function.DoubleUnaryOperator py = v -> y0 + h - ((logY ? Math.log10(v) : v) - fy0) / (fy1 - fy0) * h;

        // grid and ticks
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        FontMetrics fm = g.getFontMetrics();
        for (int e = (int) lx0; e <= (int) lx1; e++) {
            int xx = (int) Math.round(px.applyAsDouble(Math.pow(10, e)));
            g.setColor(new Color(0xdddddd));
            g.drawLine(xx, y0, xx, y0 + h);
            g.setColor(Color.BLACK);
            String t = Plots.sizeLabel(Math.pow(10, e));
            g.drawString(t, xx - fm.stringWidth(t) / 2, y0 + h + 16);
        }
        if (logY) {
            for (int e = (int) ly0; e <= (int) ly1; e++) {
                int yy = (int) Math.round(py.applyAsDouble(Math.pow(10, e)));
                g.setColor(new Color(0xdddddd));
                g.drawLine(x0, yy, x0 + w, yy);
                g.setColor(Color.BLACK);
                String t = Plots.timeLabel(Math.pow(10, e));
                g.drawString(t, x0 - 8 - fm.stringWidth(t), yy + 4);
            }
        } else {
            double step = ly1 / 5;
            for (int i = 0; i <= 5; i++) {
                double v = i * step;
                int yy = (int) Math.round(py.applyAsDouble(v));
                g.setColor(new Color(0xdddddd));
                g.drawLine(x0, yy, x0 + w, yy);
                g.setColor(Color.BLACK);
                String t = String.format(Locale.ROOT, "%,.0f", v);
                g.drawString(t, x0 - 8 - fm.stringWidth(t), yy + 4);
            }
        }
        g.setColor(Color.BLACK);
        g.drawRect(x0, y0, w, h);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        fm = g.getFontMetrics();
        g.drawString(xLabel, x0 + w / 2 - fm.stringWidth(xLabel) / 2, y0 + h + 38);
        AffineTransform saved = g.getTransform();
        g.rotate(-Math.PI / 2);
        g.drawString(yLabel, -(y0 + h / 2 + fm.stringWidth(yLabel) / 2), x0 - 58);
        g.setTransform(saved);

        // lines
        g.setStroke(new BasicStroke(2.2f));
        for (Series s : series) {
            g.setColor(color(names, s.label()));
            int prevX = -1;
            int prevY = -1;
            for (int i = 0; i < s.x().length; i++) {
                if (!(s.y()[i] > 0) || !Double.isFinite(s.y()[i])) {
                    continue;
                }
                int xx = (int) Math.round(px.applyAsDouble(s.x()[i]));
                int yy = (int) Math.round(py.applyAsDouble(s.y()[i]));
                g.fillOval(xx - 4, yy - 4, 8, 8);
                if (prevX >= 0) {
                    g.drawLine(prevX, prevY, xx, yy);
                }
                prevX = xx;
                prevY = yy;
            }
        }
        // legend, top left inside the plot
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        fm = g.getFontMetrics();
        int lw = 0;
        for (Series s : series) {
            lw = Math.max(lw, fm.stringWidth(s.label()));
        }
        int lx = x0 + 12;
        int ly = y0 + 12;
        g.setColor(new Color(255, 255, 255, 230));
        g.fillRect(lx, ly, lw + 44, series.size() * 20 + 8);
        g.setColor(Color.GRAY);
        g.setStroke(new BasicStroke(1f));
        g.drawRect(lx, ly, lw + 44, series.size() * 20 + 8);
        for (int i = 0; i < series.size(); i++) {
            Series s = series.get(i);
            int yy = ly + 18 + i * 20;
            g.setColor(color(names, s.label()));
            g.setStroke(new BasicStroke(2.2f));
            g.drawLine(lx + 8, yy - 4, lx + 30, yy - 4);
            g.setColor(Color.BLACK);
            g.drawString(s.label(), lx + 36, yy);
        }
        g.setStroke(new BasicStroke(1f));
    }

    private static double niceCeil(double v) {
        if (v <= 0) {
            return 1;
        }
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 2.5, 5, 10}) {
            if (m * p >= v) {
                return m * p;
            }
        }
        return 10 * p;
    }
}
