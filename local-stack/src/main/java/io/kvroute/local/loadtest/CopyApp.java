package io.kvroute.local.loadtest;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;

/**
 * The load test's reference: the plainest Kafka Streams application under the router's
 * guarantees (exactly_once_v2, commit interval 50 ms, one stream thread, Streams defaults
 * otherwise), copying each record's bytes from one topic to another, keyed as it came, so the
 * default partitioner spreads them over the sink's partitions. Run as a child JVM with
 * {@code key=value} arguments: {@value #BOOTSTRAP}, {@value #SOURCE}, {@value #SINK},
 * {@value #APPLICATION_ID}, {@value #STATE_DIR}, optionally {@value #COMMIT_INTERVAL_MS}.
 */
public final class CopyApp {
    public static final String BOOTSTRAP = "bootstrap.servers";
    public static final String SOURCE = "source";
    public static final String SINK = "sink";
    public static final String APPLICATION_ID = "application.id";
    public static final String STATE_DIR = "state.dir";
    public static final String COMMIT_INTERVAL_MS = "commit.interval.ms";
    public static final long DEFAULT_COMMIT_INTERVAL_MS = 50;

    private CopyApp() {
    }

    public static Topology topology(String source, String sink) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(source, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()).withName("copy-source"))
                .to(sink, Produced.with(Serdes.ByteArray(), Serdes.ByteArray()).withName("copy-sink"));
        return builder.build();
    }

    public static Properties properties(Map<String, String> settings) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, required(settings, APPLICATION_ID));
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, required(settings, BOOTSTRAP));
        p.put(StreamsConfig.STATE_DIR_CONFIG, required(settings, STATE_DIR));
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, settings.getOrDefault(COMMIT_INTERVAL_MS, Long.toString(DEFAULT_COMMIT_INTERVAL_MS)));
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, "1");
        return p;
    }

    public static void main(String[] args) throws InterruptedException {
        Map<String, String> settings = new LinkedHashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("arguments are key=value, was '" + arg + "'");
            }
            settings.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        KafkaStreams streams = new KafkaStreams(topology(required(settings, SOURCE), required(settings, SINK)), properties(settings));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            // leave the group, so a later run with the same id does not wait out the session timeout
            streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                    .withTimeout(java.time.Duration.ofSeconds(10)));
            stopped.countDown();
        }, "copy-shutdown"));
        streams.start();
        stopped.await();
    }

    private static String required(Map<String, String> settings, String key) {
        String value = settings.get(key);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("missing " + key + "=...");
        }
        return value;
    }
}
