package dev.verbatim.bench.transport;

/**
 * An ordinary least-squares line {@code y = intercept + slope * x}: the per-byte cost of Javia's
 * Tables 1-2 is the slope of round-trip time against message size (ns per byte), the intercept the
 * fixed cost of a round trip.
 *
 * @param r2 the coefficient of determination (1 = the points lie on the line; NaN when y is constant)
 */
public record LinearFit(double intercept, double slope, double r2, int points) {

    /** Fits {@code y} against {@code x} (at least two distinct x values). */
    public static LinearFit of(double[] x, double[] y) {
        if (x.length != y.length || x.length < 2) {
            throw new IllegalArgumentException("need at least two points, as many x as y");
        }
        int n = x.length;
        double mx = 0;
        double my = 0;
        for (int i = 0; i < n; i++) {
            mx += x[i];
            my += y[i];
        }
        mx /= n;
        my /= n;
        double sxx = 0;
        double sxy = 0;
        double syy = 0;
        for (int i = 0; i < n; i++) {
            double dx = x[i] - mx;
            double dy = y[i] - my;
            sxx += dx * dx;
            sxy += dx * dy;
            syy += dy * dy;
        }
        if (sxx == 0) {
            throw new IllegalArgumentException("all x equal: no slope");
        }
        double slope = sxy / sxx;
        double intercept = my - slope * mx;
        double r2 = syy == 0 ? Double.NaN : (sxy * sxy) / (sxx * syy);
        return new LinearFit(intercept, slope, r2, n);
    }

    /** The fitted y at {@code x}. */
    public double at(double x) {
        return intercept + slope * x;
    }
}
