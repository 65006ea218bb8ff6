package io.kvroute.bench.report;

import io.kvroute.bench.sim.PolicyResult;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogarithmicAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * PNG plots of a bench report, drawn headless with JFreeChart: the TTFT CDF of every policy on a
 * log time axis ({@value #TTFT_CDF}), and every policy's prefix hit rate against the
 * infinite-cache bound ({@value #HIT_RATE}).
 */
public final class Charts {
    public static final String TTFT_CDF = "ttft-cdf.png";
    public static final String HIT_RATE = "hit-rate.png";
    static final int CDF_POINTS = 400;
    private static final int WIDTH = 1100;
    private static final int HEIGHT = 650;

    private Charts() {
    }

    /** Writes both plots into {@code dir} (created if missing) and returns their paths. */
    public static List<Path> write(BenchReport report, Path dir) {
        System.setProperty("java.awt.headless", "true");
        try {
            Files.createDirectories(dir);
            Path cdf = dir.resolve(TTFT_CDF);
            Path hit = dir.resolve(HIT_RATE);
            ChartUtils.saveChartAsPNG(cdf.toFile(), ttftCdf(report), WIDTH, HEIGHT);
            ChartUtils.saveChartAsPNG(hit.toFile(), hitRate(report), WIDTH, HEIGHT);
            return List.of(cdf, hit);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write plots to " + dir + ": " + e.getMessage(), e);
        }
    }

    static JFreeChart ttftCdf(BenchReport report) {
        XYSeriesCollection dataset = new XYSeriesCollection();
        for (PolicyResult r : report.policies().values()) {
            XYSeries series = new XYSeries(r.policy(), true, true);
            long[] sorted = r.ttftsMs().clone();
            Arrays.sort(sorted);
            int n = sorted.length;
            int points = Math.min(n, CDF_POINTS);
            for (int i = 1; i <= points; i++) {
                int rank = (int) Math.ceil((double) i * n / points);
                series.add(Math.max(1, sorted[rank - 1]), (double) rank / n);
            }
            dataset.addSeries(series);
        }
        JFreeChart chart = ChartFactory.createXYLineChart(
                "TTFT CDF, " + label(report), "time to first token (ms, log scale)", "fraction of requests",
                dataset, PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = chart.getXYPlot();
        LogarithmicAxis axis = new LogarithmicAxis("time to first token (ms, log scale)");
        axis.setStrictValuesFlag(false);
        axis.setExpTickLabelsFlag(false);
        axis.setLog10TickLabelsFlag(false);
        plot.setDomainAxis(axis);
        plot.getRangeAxis().setRange(0, 1.0);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        for (int i = 0; i < dataset.getSeriesCount(); i++) {
            plot.getRenderer().setSeriesStroke(i, new BasicStroke(i == 0 ? 3.0f : 1.6f));
        }
        chart.getTitle().setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
        return chart;
    }

    static JFreeChart hitRate(BenchReport report) {
        DefaultCategoryDataset dataset = new DefaultCategoryDataset();
        for (PolicyResult r : report.policies().values()) {
            dataset.addValue(r.prefixHitRate(), "prefix hit rate", r.policy());
        }
        JFreeChart chart = ChartFactory.createBarChart("Prefix hit rate (token-weighted), " + label(report), "policy",
                "cached prompt tokens / prompt tokens", dataset, PlotOrientation.VERTICAL, false, false, false);
        CategoryPlot plot = chart.getCategoryPlot();
        plot.getRangeAxis().setRange(0, 1.0);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        double upper = report.bounds().prefixHitRateUpper();
        ValueMarker bound = new ValueMarker(upper, Color.RED, new BasicStroke(2.0f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER,
                10f, new float[] {8f, 5f}, 0f));
        bound.setLabel(String.format(Locale.ROOT, "infinite-cache bound %.3f", upper));
        bound.setLabelAnchor(RectangleAnchor.TOP_RIGHT);
        bound.setLabelTextAnchor(TextAnchor.BOTTOM_RIGHT);
        bound.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        plot.addRangeMarker(bound);
        plot.getDomainAxis().setMaximumCategoryLabelLines(2);
        chart.getTitle().setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
        return chart;
    }

    private static String label(BenchReport report) {
        return report.format() + " " + report.requests() + " req, fleet " + report.fleet() + ", load x" + report.loadScale();
    }
}
