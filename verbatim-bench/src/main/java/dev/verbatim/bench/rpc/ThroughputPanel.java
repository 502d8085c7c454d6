package dev.verbatim.bench.rpc;

import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.Stats;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.Stroke;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleUnaryOperator;
import java.util.function.Function;

/**
 * The throughput panel of {@link RpcPlot} (issue 18 §2): calls per second against the callers at once
 * (C = 1, 16, 256, evenly spaced: a log axis), both axes' values on a log scale, one line per contender
 * and medium (solid tcp, dashed shm; grpc and rmi, on loopback tcp, drawn once), each point the median of
 * the contender's turns, labelled.
 */
final class ThroughputPanel {
    private ThroughputPanel() {}

    /** One line: a contender over a medium, its calls per second at each throughput case it measured. */
    record Series(String label, String name, boolean dashed, List<RpcCase> cases, List<Double> perSecond) {}

    /** The lines of {@code run}: Verbatim's over shm and tcp, the peers' once. */
    static List<Series> series(RpcBench.Run run) {
        List<Series> out = new ArrayList<>();
        for (Medium m : List.of(Medium.TCP, Medium.SHM)) {
            for (RpcBench.Result r : run.results()) {
                if (!r.ok() || r.medium() != m) {
                    continue;
                }
                List<RpcCase> cs = new ArrayList<>();
                List<Double> v = new ArrayList<>();
                for (RpcCase c : RpcCase.values()) {
                    if (c.isThroughput() && r.rates(c).length > 0) {
                        cs.add(c);
                        v.add(Stats.median(r.rates(c)));
                    }
                }
                if (!cs.isEmpty()) {
                    String label = r.name().startsWith("verbatim") ? m.key() + "/" + r.name() : r.name();
                    out.add(new Series(label, r.name(), m == Medium.SHM, cs, v));
                }
            }
        }
        return out;
    }

    static void draw(Graphics2D g, int x0, int y0, int w, int h, RpcBench.Run run, Function<String, Color> color) {
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        g.setColor(Color.BLACK);
        g.drawString("(d) throughput: null calls per second, C callers at once on one proxy (grpc, rmi: loopback tcp)",
                x0, y0 - 10);
        g.drawRect(x0, y0, w, h);
        List<Series> lines = series(run);
        double min = Double.MAX_VALUE;
        double max = 0;
        for (Series s : lines) {
            for (double v : s.perSecond()) {
                if (v > 0) {
                    min = Math.min(min, v);
                    max = Math.max(max, v);
                }
            }
        }
        if (max == 0) {
            g.drawString("(no data)", x0 + w / 2 - 30, y0 + h / 2);
            return;
        }
        DoubleUnaryOperator py = RpcPlot.logAxis(g, x0, y0, w, h, min, max, ThroughputPanel::rateLabel,
                "calls per second (log)");
        List<RpcCase> xs = new ArrayList<>();
        for (RpcCase c : RpcCase.values()) {
            if (c.isThroughput()) {
                xs.add(c);
            }
        }
        DoubleUnaryOperator px = i -> x0 + 60 + i * (w - 300.0) / Math.max(1, xs.size() - 1);
        FontMetrics fm = g.getFontMetrics();
        for (int i = 0; i < xs.size(); i++) {
            String t = "C = " + xs.get(i).callers();
            g.drawString(t, (int) px.applyAsDouble(i) - fm.stringWidth(t) / 2, y0 + h + 18);
        }
        Stroke solid = new BasicStroke(2f);
        Stroke dashed = new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {8f, 5f}, 0f);
        int legendY = y0 + 20;
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        for (Series s : lines) {
            g.setColor(color.apply(s.name()));
            g.setStroke(s.dashed() ? dashed : solid);
            int px0 = -1;
            int py0 = -1;
            for (int k = 0; k < s.cases().size(); k++) {
                double v = s.perSecond().get(k);
                if (!(v > 0)) {
                    continue;
                }
                int x = (int) Math.round(px.applyAsDouble(xs.indexOf(s.cases().get(k))));
                int y = (int) Math.round(py.applyAsDouble(v));
                if (px0 >= 0) {
                    g.drawLine(px0, py0, x, y);
                }
                g.fillOval(x - 3, y - 3, 7, 7);
                g.drawString(rateLabel(v), x + 5, y - 4);
                px0 = x;
                py0 = y;
            }
            g.drawLine(x0 + w - 220, legendY - 4, x0 + w - 190, legendY - 4);
            g.setColor(Color.BLACK);
            g.drawString(s.label(), x0 + w - 184, legendY);
            legendY += 15;
        }
        g.setStroke(new BasicStroke(1f));
    }

    /** Calls per second, short: {@code 12k}, {@code 1.2M}, {@code 850}. */
    static String rateLabel(double v) {
        if (v >= 1e6) {
            return String.format(Locale.ROOT, "%.1fM", v / 1e6);
        }
        if (v >= 1e4) {
            return String.format(Locale.ROOT, "%.0fk", v / 1e3);
        }
        if (v >= 1e3) {
            return String.format(Locale.ROOT, "%.1fk", v / 1e3);
        }
        return String.format(Locale.ROOT, "%.0f", v);
    }
}
