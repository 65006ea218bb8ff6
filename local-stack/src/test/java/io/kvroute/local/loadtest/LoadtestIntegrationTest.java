package io.kvroute.local.loadtest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A small {@code kvroute loadtest} as part of the suite: a real broker and registry, the copy app
 * and one router as separate JVMs, 300 warm-up requests then 1,500 measured, 4 idle GPU slots, two per worker process. It checks
 * what was measured is whole (every request routed exactly once, every record copied, the warm-up's apart), never how fast.
 */
class LoadtestIntegrationTest {
    private static final int REQUESTS = 1_500;
    private static final int WARMUP = 300;

    @Test
    void shouldRouteEveryRequestOnceAndReportEveryFigure() throws Exception {
        Path dir = Files.createTempDirectory("kvroute-loadtest");
        Path json = dir.resolve("report.json");
        LoadtestRun.Options options = new LoadtestRun.Options(REQUESTS, 4, 2, 1, "kvroute", 0, null, null, (short) 1, dir, 16, true, 4,
                Map.of(), Duration.ofSeconds(30), LoadtestCommand.defaultTrace(), "test", 0, WARMUP, 1);
        ByteArrayOutputStream progress = new ByteArrayOutputStream();

        LoadtestReport report = new LoadtestRun(options, new PrintStream(progress, true, StandardCharsets.UTF_8)).run();

        report.printTable(System.out);
        assertThat(report.route().records()).isEqualTo(REQUESTS);
        assertThat(report.route().distinctKeys()).isEqualTo(REQUESTS);
        assertThat(report.route().warmupRecords()).isEqualTo(WARMUP);
        assertThat(report.outcomes()).containsExactly(Map.entry("DISPATCHED", (long) REQUESTS + WARMUP));
        assertThat(report.copy().records()).isEqualTo(REQUESTS);
        assertThat(report.copy().distinctKeys()).isEqualTo(REQUESTS);
        assertThat(report.copy().warmupRecords()).isEqualTo(WARMUP);
        assertThat(report.route().perSecond()).isPositive();
        assertThat(report.copy().perSecond()).isPositive();
        assertThat(report.ratio()).isPositive();
        assertThat(report.route().cpuMicrosPerRecord(LoadtestReport.ROUTER)).isPositive();
        assertThat(report.route().cpuMicrosPerRecord(LoadtestReport.BROKER)).isPositive();
        assertThat(report.route().cpuMicrosPerRecord(LoadtestReport.LOADTEST)).as("its own watch used CPU while the router ran")
                .isPositive();
        assertThat(report.route().coresBusy(LoadtestReport.ROUTER)).isPositive();
        assertThat(report.copy().cpuMicrosPerRecord(LoadtestReport.COPY)).isPositive();

        TopicWrites.Written dispatch = written(report, "kvroute.dispatch.* (all regions)");
        assertThat(dispatch.records()).as("the topics' writes count the warm-up's too").isEqualTo(REQUESTS + WARMUP);
        // us-east's two GPUs share one worker process's partition; eu-west and ap-south have one each
        assertThat(dispatch.partitions()).isEqualTo(3);
        // every routing transaction that wrote a dispatch partition commits it with a marker there
        assertThat(dispatch.markers()).isPositive();
        assertThat(dispatch.logBytes()).isGreaterThan(dispatch.payloadBytes());
        assertThat(written(report, "kvroute.decisions").records()).isEqualTo(REQUESTS + WARMUP);
        assertThat(report.topics()).anySatisfy(w -> assertThat(w.topic()).endsWith("-changelog"));

        assertThat(report.setup()).as("the broker was formatted with transactions version 1, as asked")
                .containsEntry("transactionVersion", 1)
                .containsEntry("coresAvailable", Runtime.getRuntime().availableProcessors());

        report.writeJson(json);
        assertThat(Files.readString(json)).contains("\"ratioRoutedToCopy\"", "\"writtenPerRequest\"", "\"cpuMicrosPerRequest\"", "\"coresBusy\"");
    }

    private static TopicWrites.Written written(LoadtestReport report, String topic) {
        return report.topics().stream().filter(w -> w.topic().equals(topic)).findFirst()
                .orElseThrow(() -> new AssertionError("no writes reported for " + topic + ": " + report.topics()));
    }
}
