package dev.verbatim.bench.objects;

import dev.verbatim.bench.harness.Plots;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.Stroke;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleUnaryOperator;

/**
 * Paper 003's list figure as a PNG (Java2D, headless): time per element (log scale) against the number of
 * bases, one panel per layout, a line per walk (objects), and Java RMI's serial walk dashed. Points that
 * were not measured are left out.
 */
final class ObjectsPlot {
    private ObjectsPlot() {}

    private static final int W = 1500;
    private static final int H = 600;
    private static final Color[] COLORS = {new Color(0x1f77b4), new Color(0x2ca02c), new Color(0xff7f0e), new Color(0xd62728)};

    /** A line of the figure: its label, colour, dash, and figure per number of bases (index 0: b1; NaN: none). */
    record Series(String label, Color color, boolean dashed, double[] perBases) {}

    static List<Series> series(ObjectsBench.Run run, Layout l) {
        List<Series> s = new ArrayList<>();
        Traversal[] ts = Traversal.values();
        for (int i = 0; i < ts.length; i++) {
            s.add(new Series(ts[i].key(), COLORS[i], false, figures(run, l, ts[i], ObjectsCase.OBJECTS)));
        }
        s.add(new Series("serial rmi", COLORS[3], true, figures(run, l, Traversal.SERIAL, ObjectsCase.RMI)));
        return s;
    }

    private static double[] figures(ObjectsBench.Run run, Layout l, Traversal t, String contender) {
        double[] v = new double[ObjectsCase.MAX_BASES];
        for (int b = 1; b <= v.length; b++) {
            v[b - 1] = run.figure(ObjectsCase.list(l, t, b), contender);
        }
        return v;
    }

    static void write(ObjectsBench.Run run, Path file) throws IOException {
        BufferedImage img = Plots.image(W, H);
        Graphics2D g = Plots.canvas(img, String.format(java.util.Locale.ROOT,
                "Distributed list (paper 003 §5): %,d elements, %,d ns of work each", run.elements(), run.work()), run.mode());
        try {
            Layout[] ls = Layout.values();
            for (int i = 0; i < ls.length; i++) {
                panel(g, 90 + i * 480, 70, 400, 430, "(" + (char) ('a' + i) + ") " + ls[i].key(), series(run, ls[i]));
            }
            legend(g, 90, 570, series(run, Layout.SCATTERED));
        } finally {
            g.dispose();
        }
        Plots.save(img, file);
    }

    private static void panel(Graphics2D g, int x0, int y0, int w, int h, String title, List<Series> series) {
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        g.setColor(Color.BLACK);
        g.drawString(title, x0, y0 - 10);
        g.drawRect(x0, y0, w, h);
        double min = Double.MAX_VALUE;
        double max = 0;
        for (Series s : series) {
            for (double v : s.perBases()) {
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
        double ly0 = Math.floor(Math.log10(min));
        double ly1 = Math.max(ly0 + 1, Math.ceil(Math.log10(max)));
        DoubleUnaryOperator py = v -> y0 + h - (Math.log10(v) - ly0) / (ly1 - ly0) * h;
        int n = ObjectsCase.MAX_BASES;
        DoubleUnaryOperator px = b -> x0 + 30 + (b - 1) * (w - 60) / (n - 1.0);
        Plots.logTimeGrid(g, x0, w, ly0, ly1, py);
        FontMetrics fm = g.getFontMetrics();
        for (int b = 1; b <= n; b++) {
            String t = b + (b == 1 ? " base" : " bases");
            g.drawString(t, (int) px.applyAsDouble(b) - fm.stringWidth(t) / 2, y0 + h + 18);
        }
        Stroke saved = g.getStroke();
        for (Series s : series) {
            g.setColor(s.color());
            g.setStroke(s.dashed() ? new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 1f, new float[] {8f, 6f}, 0f)
                    : new BasicStroke(2f));
            int lx = -1;
            int ly = -1;
            for (int b = 1; b <= n; b++) {
                double v = s.perBases()[b - 1];
                if (!(v > 0)) {
                    lx = -1;
                    continue;
                }
                int x = (int) Math.round(px.applyAsDouble(b));
                int y = (int) Math.round(py.applyAsDouble(v));
                g.fillOval(x - 4, y - 4, 8, 8);
                if (lx >= 0) {
                    g.drawLine(lx, ly, x, y);
                }
                lx = x;
                ly = y;
            }
        }
        g.setStroke(saved);
        g.setColor(Color.BLACK);
        g.drawString("per element (log)", x0 + 4, y0 + 14);
    }

    private static void legend(Graphics2D g, int x, int y, List<Series> series) {
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        FontMetrics fm = g.getFontMetrics();
        for (Series s : series) {
            g.setColor(s.color());
            g.fillRect(x, y - 11, 14, 14);
            g.setColor(Color.BLACK);
            g.drawString(s.label() + (s.dashed() ? " (Java RMI)" : " (objects)"), x + 20, y);
            x += 50 + fm.stringWidth(s.label() + " (objects)");
        }
    }
}
