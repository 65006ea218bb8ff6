package io.kvroute.router.routing;

/**
 * Online least squares that forgets, shrugs off outliers and keeps every coefficient at zero or
 * above (each is a time per unit of work, which cannot be negative). It keeps the exponentially
 * forgotten normal equations (old observations fade, so the fit follows an engine that slows
 * down), weights each observation by Huber's rule (a residual beyond {@value #HUBER_SCALES} mean
 * absolute residuals counts as if it were that large, so a request stuck behind a preemption does
 * not drag the fit), adds a prior that does not fade (a ridge towards the prior coefficients, so
 * directions the data stop exciting stay put), and solves exactly under the sign constraints by
 * trying each set of coefficients held at zero: with three coefficients, eight small solves.
 * Not clamping after an unconstrained fit matters: features that move together (decoding
 * sequences and their context) otherwise trade a large coefficient against a negative one, and
 * the fit read clamped predicts nothing seen. Not thread-safe.
 */
final class RobustRegression {
    /** Residuals beyond this many mean absolute residuals are down-weighted (Huber's 1.345 sigma is ~1.7 of them). */
    static final double HUBER_SCALES = 2.0;
    /** Weight of the newest residual in the mean absolute residual. */
    static final double SCALE_WEIGHT = 0.05;

    private final int n;
    private final double[] prior;
    private final double[] priorPrecision;
    private final double forgetting;
    private final double[][] xtx;
    private final double[] xty;
    private double[] theta;
    private double meanAbsResidual;
    private long observations;

    /**
     * @param prior      the coefficients before any observation (at least 0)
     * @param priorSd    how far from them they may be, per coefficient (the prior's standard deviation, above 0)
     * @param forgetting the weight an observation keeps per later one, in (0, 1]: the fit remembers about
     *                   1 / (1 - forgetting) observations
     */
    RobustRegression(double[] prior, double[] priorSd, double forgetting) {
        if (prior.length != priorSd.length || prior.length == 0 || prior.length > 8) {
            throw new IllegalArgumentException("prior and its spread must have one entry per coefficient, 1 to 8");
        }
        if (!(forgetting > 0 && forgetting <= 1)) {
            throw new IllegalArgumentException("forgetting factor must be in (0, 1], was " + forgetting);
        }
        this.n = prior.length;
        this.prior = prior.clone();
        this.priorPrecision = new double[n];
        for (int i = 0; i < n; i++) {
            if (!(priorSd[i] > 0) || !(prior[i] >= 0)) {
                throw new IllegalArgumentException("prior " + prior[i] + " must be >= 0 and its spread " + priorSd[i] + " > 0");
            }
            priorPrecision[i] = 1.0 / (priorSd[i] * priorSd[i]);
        }
        this.forgetting = forgetting;
        this.xtx = new double[n][n];
        this.xty = new double[n];
        this.theta = prior.clone();
    }

    /** Learns that {@code y} was observed with features {@code x}; non-finite values are ignored. */
    void observe(double[] x, double y) {
        if (!Double.isFinite(y)) {
            return;
        }
        double predicted = 0;
        for (int i = 0; i < n; i++) {
            if (!Double.isFinite(x[i])) {
                return;
            }
            predicted += theta[i] * x[i];
        }
        double residual = Math.abs(y - predicted);
        double weight = 1.0;
        if (observations > n && meanAbsResidual > 0 && residual > HUBER_SCALES * meanAbsResidual) {
            weight = HUBER_SCALES * meanAbsResidual / residual;
        }
        meanAbsResidual = observations == 0 ? residual
                : meanAbsResidual + SCALE_WEIGHT * (Math.min(residual, 4 * HUBER_SCALES * meanAbsResidual) - meanAbsResidual);
        observations++;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                xtx[i][j] = forgetting * xtx[i][j] + weight * x[i] * x[j];
            }
            xty[i] = forgetting * xty[i] + weight * x[i] * y;
        }
        theta = solve();
    }

    /** The coefficients now, each at least 0. */
    double[] coefficients() {
        return theta.clone();
    }

    long observations() {
        return observations;
    }

    /** The typical size of a residual: how far off the fit's predictions run. */
    double meanAbsResidual() {
        return meanAbsResidual;
    }

    /**
     * Minimizes theta'A theta - 2 b'theta over theta >= 0, with A = X'WX + P and b = X'Wy + P prior (P the prior's
     * precisions): the best of the unconstrained solutions over each set of free coefficients, the others 0, that
     * keeps its free ones non-negative. The optimum is one of them (its free set is where the constraints are slack).
     */
    private double[] solve() {
        double[] best = new double[n];
        double bestObjective = 0.0; // all zero
        for (int free = 1; free < (1 << n); free++) {
            double[] candidate = solveFree(free);
            if (candidate == null) {
                continue;
            }
            double objective = 0;
            for (int i = 0; i < n; i++) {
                double ai = 0;
                for (int j = 0; j < n; j++) {
                    ai += a(i, j) * candidate[j];
                }
                objective += candidate[i] * ai - 2 * b(i) * candidate[i];
            }
            if (objective < bestObjective) {
                bestObjective = objective;
                best = candidate;
            }
        }
        return best;
    }

    /** The unconstrained solution with only the coefficients in {@code free} (a bit set) non-zero; null if any is negative. */
    private double[] solveFree(int free) {
        int m = Integer.bitCount(free);
        int[] index = new int[m];
        for (int i = 0, k = 0; i < n; i++) {
            if ((free & (1 << i)) != 0) {
                index[k++] = i;
            }
        }
        double[][] m2 = new double[m][m + 1];
        for (int r = 0; r < m; r++) {
            for (int c = 0; c < m; c++) {
                m2[r][c] = a(index[r], index[c]);
            }
            m2[r][m] = b(index[r]);
        }
        // Gaussian elimination with partial pivoting; A is positive definite (the prior's precisions are on its diagonal)
        for (int col = 0; col < m; col++) {
            int pivot = col;
            for (int r = col + 1; r < m; r++) {
                if (Math.abs(m2[r][col]) > Math.abs(m2[pivot][col])) {
                    pivot = r;
                }
            }
            double[] swap = m2[col];
            m2[col] = m2[pivot];
            m2[pivot] = swap;
            if (m2[col][col] == 0) {
                return null;
            }
            for (int r = col + 1; r < m; r++) {
                double f = m2[r][col] / m2[col][col];
                for (int c = col; c <= m; c++) {
                    m2[r][c] -= f * m2[col][c];
                }
            }
        }
        double[] out = new double[n];
        for (int r = m - 1; r >= 0; r--) {
            double sum = m2[r][m];
            for (int c = r + 1; c < m; c++) {
                sum -= m2[r][c] * out[index[c]];
            }
            double value = sum / m2[r][r];
            if (!(value >= 0)) {
                return null;
            }
            out[index[r]] = value;
        }
        return out;
    }

    private double a(int i, int j) {
        return xtx[i][j] + (i == j ? priorPrecision[i] : 0.0);
    }

    private double b(int i) {
        return xty[i] + priorPrecision[i] * prior[i];
    }
}
