package dev.verbatim.bench.rpc;

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
 * The figure of a run as a PNG (Java2D, headless): one panel per medium, a group of bars per case,
 * one bar per contender, the p50 call round trip on a log scale (RMI and gRPC are 10-100x the
 * floor); below, the throughput cases' calls per second against the callers ({@link ThroughputPanel}).
 * A contender keeps its colour in every panel.
 */
final class RpcPlot {
    private RpcPlot() {}

    private static final int W = 1400;
    private static final int H = 1120;
    private static final Color[] COLORS = {
        new Color(0x7f7f7f), new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
        new Color(0xff7f0e), new Color(0x9467bd), new Color(0x8c564b), new Color(0x17becf),
        new Color(0xe377c2), new Color(0xbcbd22), new Color(0x393b79), new Color(0x000000)}; // 12: every contender its own

    static void write(RpcBench.Run run, Path file) throws IOException {
        List<String> names = new ArrayList<>();
        for (RpcBench.Result r : run.results()) {
            if (r.ok() && !names.contains(r.name())) {
                names.add(r.name());
            }
        }
        BufferedImage img = Plots.image(W, H);
        Graphics2D g = Plots.canvas(img, "Verbatim RPC benchmark: p50 call round trip", run.mode());
        try {
            panel(g, 90, 70, 580, 440, "(a) shm (rmi, grpc: loopback TCP)", run, Medium.SHM, names);
            panel(g, 790, 70, 580, 440, "(b) tcp loopback (floor: raw NIO)", run, Medium.TCP, names);
            legend(g, 90, 580, names);
            ThroughputPanel.draw(g, 90, 650, 1280, 400, run, n -> color(names, n));
        } finally {
            g.dispose();
        }
        Plots.save(img, file);
    }

    private static Color color(List<String> names, String name) {
        return COLORS[Math.max(0, names.indexOf(name)) % COLORS.length];
    }

    private static void panel(Graphics2D g, int x0, int y0, int w, int h, String title, RpcBench.Run run, Medium m,
                              List<String> names) {
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        g.setColor(Color.BLACK);
        g.drawString(title, x0, y0 - 10);
        List<RpcBench.Result> shown = run.shownIn(m);
        List<RpcCase> cases = new ArrayList<>();
        double min = Double.MAX_VALUE;
        double max = 0;
        for (RpcCase c : RpcCase.values()) {
            if (c.isThroughput()) {
                continue; // the throughput panel's
            }
            for (RpcBench.Result r : shown) {
                if (r.has(c)) {
                    double v = r.quantile(c, 0.5);
                    if (v > 0) {
                        min = Math.min(min, v);
                        max = Math.max(max, v);
                        if (!cases.contains(c)) {
                            cases.add(c);
                        }
                    }
                }
            }
        }
        g.drawRect(x0, y0, w, h);
        if (cases.isEmpty()) {
            g.drawString("(no data)", x0 + w / 2 - 30, y0 + h / 2);
            return;
        }
        java.util.function.DoubleUnaryOperator py = logAxis(g, x0, y0, w, h, min, max, Plots::timeLabel,
                "p50 call round trip (log)");
        FontMetrics fm;
        int groupW = w / cases.size();
        for (int i = 0; i < cases.size(); i++) {
            RpcCase c = cases.get(i);
            List<RpcBench.Result> bars = shown.stream().filter(r -> r.has(c)).toList();
            int gx = x0 + i * groupW;
            int barW = Math.min(34, (groupW - 16) / Math.max(1, bars.size()));
            int bx = gx + (groupW - barW * bars.size()) / 2;
            for (RpcBench.Result r : bars) {
                double v = r.quantile(c, 0.5);
                int top = (int) Math.round(py.applyAsDouble(v));
                g.setColor(color(names, r.name()));
                g.fillRect(bx, top, barW - 3, y0 + h - top);
                g.setColor(Color.DARK_GRAY);
                g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 9));
                String t = shortTime(v);
                FontMetrics f9 = g.getFontMetrics();
                g.drawString(t, bx + (barW - 3) / 2 - f9.stringWidth(t) / 2, top - 3);
                bx += barW;
            }
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
            fm = g.getFontMetrics();
            g.drawString(c.key(), gx + groupW / 2 - fm.stringWidth(c.key()) / 2, y0 + h + 18);
        }
    }

    /**
     * Draws a log-scale y axis over the panel at ({@code x0}, {@code y0}) of {@code w} x {@code h} for values from
     * {@code min} to {@code max} (a decade's grid line and {@code label} each, room above the top value for its
     * label) and the rotated {@code yLabel}; returns the y pixel of a value.
     */
    static java.util.function.DoubleUnaryOperator logAxis(Graphics2D g, int x0, int y0, int w, int h, double min, double max,
                                                          java.util.function.DoubleFunction<String> label, String yLabel) {
        double ly0 = Math.floor(Math.log10(min));
        double ly1 = Math.max(ly0 + 1, Math.ceil(Math.log10(max * 1.4))); // room for the top bar's label
        java.util.function.DoubleUnaryOperator py = v -> y0 + h - (Math.log10(v) - ly0) / (ly1 - ly0) * h;
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        FontMetrics fm = g.getFontMetrics();
        for (int e = (int) ly0; e <= (int) ly1; e++) {
            int yy = (int) Math.round(py.applyAsDouble(Math.pow(10, e)));
            g.setColor(new Color(0xdddddd));
            g.drawLine(x0 + 1, yy, x0 + w - 1, yy);
            g.setColor(Color.BLACK);
            String t = label.apply(Math.pow(10, e));
            g.drawString(t, x0 - 8 - fm.stringWidth(t), yy + 4);
        }
        AffineTransform saved = g.getTransform();
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        g.rotate(-Math.PI / 2);
        g.drawString(yLabel, -(y0 + h / 2 + g.getFontMetrics().stringWidth(yLabel) / 2), x0 - 62);
        g.setTransform(saved);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        return py;
    }

    private static void legend(Graphics2D g, int x, int y, List<String> names) {
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        FontMetrics fm = g.getFontMetrics();
        g.setStroke(new BasicStroke(1f));
        for (String n : names) {
            g.setColor(color(names, n));
            g.fillRect(x, y - 11, 14, 14);
            g.setColor(Color.BLACK);
            g.drawString(n, x + 20, y);
            x += 40 + fm.stringWidth(n);
        }
    }

    static String shortTime(double ns) {
        if (ns >= 1e4) {
            return String.format(Locale.ROOT, "%.0fu", ns / 1e3);
        }
        if (ns >= 1e3) {
            return String.format(Locale.ROOT, "%.1fu", ns / 1e3);
        }
        return String.format(Locale.ROOT, "%.0f", ns);
    }
}
