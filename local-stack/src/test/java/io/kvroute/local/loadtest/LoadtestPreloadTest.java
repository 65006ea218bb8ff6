package io.kvroute.local.loadtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.bench.trace.TraceRequest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The pre-load with a producer double whose broker refuses chosen sends (a unit test: the integration test uses a real broker). */
class LoadtestPreloadTest {
    private static final List<TraceRequest> TRACE = List.of(new TraceRequest(0, 1024, 10, new long[] {0, 1}, 512));
    private final LoadtestWorkload workload = new LoadtestWorkload(TRACE, 16, "lt-", Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));
    private final ByteArrayOutputStream progress = new ByteArrayOutputStream();

    /** Acknowledges every send except those {@code refuse} picks, which time out as a delivery would. */
    private static final class RefusingProducer extends MockProducer<String, byte[]> {
        private final Predicate<ProducerRecord<String, byte[]>> refuse;
        final List<String> acknowledged = new ArrayList<>();

        RefusingProducer(Predicate<ProducerRecord<String, byte[]>> refuse) {
            super(true, null, new StringSerializer(), new ByteArraySerializer());
            this.refuse = refuse;
        }

        @Override
        public synchronized Future<RecordMetadata> send(ProducerRecord<String, byte[]> record, Callback callback) {
            if (refuse.test(record)) {
                callback.onCompletion(null, new TimeoutException("Expiring 1 record(s): 120000 ms has passed since batch creation"));
                return CompletableFuture.failedFuture(new TimeoutException("refused"));
            }
            acknowledged.add(record.key());
            return super.send(record, callback);
        }
    }

    private LoadtestRun run(int requests) {
        return run(requests, 0);
    }

    private LoadtestRun run(int requests, int warmup) {
        LoadtestCommand command = new LoadtestCommand();
        new CommandLine(command).parseArgs("--requests", Integer.toString(requests), "--warmup-requests", Integer.toString(warmup),
                "--work-dir", "/tmp/unused");
        return new LoadtestRun(command.options(), new PrintStream(progress, true, StandardCharsets.UTF_8));
    }

    @Test
    void shouldPreloadTheWarmupFirstAndCountOnlyTheMeasuredRequestsPrompts() {
        RefusingProducer producer = new RefusingProducer(r -> false);

        long chars = run(30, 6).preload(producer, workload, (topic, request) -> new byte[1], "requests");

        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 36; i++) {
            expected.add(workload.requestId(i));
        }
        assertThat(producer.acknowledged).containsExactlyElementsOf(expected);
        assertThat(chars).isEqualTo(30L * workload.request(0).getPrompt().length());
        assertThat(progress.toString(StandardCharsets.UTF_8)).contains("pre-loading 36 requests").contains("the first 6 to warm up");
    }

    @Test
    void shouldSendAgainWhatTheBrokerDidNotAcknowledge() {
        Set<String> refusedOnce = new HashSet<>();
        // every third request is refused the first time it is sent
        RefusingProducer producer = new RefusingProducer(r -> Integer.parseInt(r.key().replaceAll("\\D", "")) % 3 == 0 && refusedOnce.add(r.key()));

        run(30).preload(producer, workload, (topic, request) -> new byte[1], "requests");

        assertThat(producer.acknowledged).hasSize(30).doesNotHaveDuplicates();
        assertThat(progress.toString(StandardCharsets.UTF_8)).contains("10 requests were not acknowledged").contains("sending them again");
    }

    @Test
    void shouldFailNamingHowManyAreMissingWhenTheBrokerKeepsRefusing() {
        RefusingProducer producer = new RefusingProducer(r -> r.key().endsWith("7"));

        assertThatThrownBy(() -> run(30).preload(producer, workload, (topic, request) -> new byte[1], "requests"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("3 of 30 requests could not be written to requests in " + LoadtestRun.PRELOAD_ROUNDS + " rounds")
                .hasMessageContaining("120000 ms has passed");
        assertThat(producer.acknowledged).hasSize(27);
    }
}
