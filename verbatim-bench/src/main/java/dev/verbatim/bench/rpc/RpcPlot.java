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
 * The figure of a run as a PNG (Java2D, headless): one panel per medium ({@link #PANELS}: shm, tcp, and tls,
 * where the plaintext tcp Verbatim stands beside the TLS one as {@code verbatim-plain}), a group of bars per case,
 * one bar per contender, the p50 call round trip on a log scale (RMI and gRPC are 10-100x the floor); below, the
 * throughput cases' calls per second against the callers ({@link ThroughputPanel}). A contender keeps its colour
 * in every panel, under the name it has in each medium's tables ({@link RpcBench.Result#nameIn}). What a panel
 * draws is {@link #groups}.
 */
final class RpcPlot {
    private RpcPlot() {}

    /** The latency panels, left to right. */
    static final List<Medium> PANELS = List.of(Medium.SHM, Medium.TCP, Medium.TLS);

    private static final int[] PANEL_X = {90, 700, 1250};
    private static final int[] PANEL_W = {520, 460, 320};
    private static final String[] TITLES = {"(a) shm (rmi, grpc: loopback TCP)", "(b) tcp loopback (floor: raw NIO)",
        "(c) tls (mutual TLS 1.3, loopback)"};
    private static final int W = 1600;
    private static final int H = 1120;
    private static final Color[] COLORS = {
        new Color(0x7f7f7f), new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
        new Color(0xff7f0e), new Color(0x9467bd), new Color(0x8c564b), new Color(0x17becf),
        new Color(0xe377c2), new Color(0xbcbd22), new Color(0x393b79), new Color(0x000000),
        new Color(0xff9896)}; // 13: every contender its own (the 13th, verbatim-plain, drew in the floor's grey)

    /** One bar of a latency panel: a contender, under its name in the panel's medium, and its p50 in ns. */
    record Bar(String name, double p50) {}

    /** One case of a latency panel and its bars, in the medium's column order. */
    record Group(RpcCase c, List<Bar> bars) {}

    /**
     * What the latency panel of {@code m} draws: every latency case (not the throughput ones) that some contender
     * shown in {@code m} has with a positive p50, in {@link RpcCase} order, each with the bars of the contenders
     * that have it.
     */
    static List<Group> groups(RpcBench.Run run, Medium m) {
        List<Group> groups = new ArrayList<>();
        for (RpcCase c : RpcCase.values()) {
            if (c.isThroughput()) {
                continue; // the throughput panel's
            }
            List<Bar> bars = new ArrayList<>();
            for (RpcBench.Result r : run.shownIn(m)) {
                if (r.has(c) && r.quantile(c, 0.5) > 0) {
                    bars.add(new Bar(r.nameIn(m), r.quantile(c, 0.5)));
                }
            }
            if (!bars.isEmpty()) {
                groups.add(new Group(c, List.copyOf(bars)));
            }
        }
        return groups;
    }

    /** Every name a bar or a throughput line can have, in the order of the results: the legend and the colours. */
    static List<String> names(RpcBench.Run run) {
        List<String> names = new ArrayList<>();
        for (RpcBench.Result r : run.results()) {
            if (r.ok() && !names.contains(r.name())) {
                names.add(r.name());
            }
        }
        for (Medium m : PANELS) {
            for (RpcBench.Result r : run.shownIn(m)) {
                if (!names.contains(r.nameIn(m))) {
                    names.add(r.nameIn(m));
                }
            }
        }
        return names;
    }

    static void write(RpcBench.Run run, Path file) throws IOException {
        List<String> names = names(run);
        BufferedImage img = Plots.image(W, H);
        Graphics2D g = Plots.canvas(img, "Verbatim RPC benchmark: p50 call round trip", run.mode());
        try {
            for (int i = 0; i < PANELS.size(); i++) {
                panel(g, PANEL_X[i], 70, PANEL_W[i], 440, TITLES[i], groups(run, PANELS.get(i)), names);
            }
            legend(g, 90, 580, names);
            ThroughputPanel.draw(g, 90, 650, 1480, 400, run, n -> color(names, n));
        } finally {
            g.dispose();
        }
        Plots.save(img, file);
    }

    private static Color color(List<String> names, String name) {
        return COLORS[Math.max(0, names.indexOf(name)) % COLORS.length];
    }

    private static void panel(Graphics2D g, int x0, int y0, int w, int h, String title, List<Group> cases,
                              List<String> names) {
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        g.setColor(Color.BLACK);
        g.drawString(title, x0, y0 - 10);
        double min = Double.MAX_VALUE;
        double max = 0;
        for (Group c : cases) {
            for (Bar b : c.bars()) {
                min = Math.min(min, b.p50());
                max = Math.max(max, b.p50());
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
            RpcCase c = cases.get(i).c();
            List<Bar> bars = cases.get(i).bars();
            int gx = x0 + i * groupW;
            int barW = Math.min(34, (groupW - 16) / Math.max(1, bars.size()));
            int bx = gx + (groupW - barW * bars.size()) / 2;
            for (Bar b : bars) {
                double v = b.p50();
                int top = (int) Math.round(py.applyAsDouble(v));
                g.setColor(color(names, b.name()));
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
