package io.kvroute.local.loadtest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * What a downstream reader sees, as it sees it: a {@code read_committed} consumer (no group,
 * from the beginning) on the measured partitions, taking the time ({@code System.currentTimeMillis()})
 * when each poll returns records. A record is "committed and readable" at that time. It counts the
 * records and their distinct keys, samples the processes' CPU when the first record is seen and
 * again after every poll that returned some, and, given when each request was sent, the latency
 * from its send to its record being readable. Other partitions (the decisions) are only counted.
 */
final class CommittedWatch implements Runnable, AutoCloseable {
    private final KafkaConsumer<String, byte[]> consumer;
    private final Set<TopicPartition> measured;
    private final Supplier<Map<String, Double>> cpu;
    private final String idPrefix;
    private final int measuredFrom;
    private final AtomicLongArray sentAtMs;
    private final Set<String> keys = new HashSet<>();
    private final List<Long> latenciesMs = new ArrayList<>();
    private final Thread thread;
    private Span span = Span.EMPTY;
    private long[] seenAtMs = new long[1024];
    private long others;
    private long warmups;
    private long lastProgressMs = System.currentTimeMillis();
    private Map<String, Double> firstCpu;
    private Map<String, Double> lastCpu;
    private volatile RuntimeException failure;

    /**
     * @param measuredFrom records of requests {@code 0 .. measuredFrom - 1} (keys {@code idPrefix + i}) warm up: counted, not measured
     * @param sentAtMs when request {@code i} (key {@code idPrefix + i}) was sent, for latency; null when not measured
     */
    CommittedWatch(String bootstrapServers, Collection<TopicPartition> measured, Collection<TopicPartition> counted,
                   Supplier<Map<String, Double>> cpu, String idPrefix, int measuredFrom, AtomicLongArray sentAtMs) {
        this.consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.CLIENT_ID_CONFIG, "kvroute-loadtest-watch",
                // fetch.max.wait.ms stays Kafka's 500: a waiting read_committed fetch is answered when a commit makes
                // records readable (p50 95 and 68 against 180 and 62 ms at 10 ms, --rate 4000); 10 ms made the broker
                // answer a hundred empty fetches a second over every dispatch partition, CPU taken from the router it measures
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000),
                new StringDeserializer(), new ByteArrayDeserializer());
        this.measured = Set.copyOf(measured);
        List<TopicPartition> all = new ArrayList<>(measured);
        all.addAll(counted);
        consumer.assign(all);
        consumer.seekToBeginning(all);
        this.cpu = cpu;
        this.idPrefix = idPrefix;
        this.measuredFrom = measuredFrom;
        this.sentAtMs = sentAtMs;
        this.thread = new Thread(this, "loadtest-watch");
        thread.setDaemon(true);
    }

    CommittedWatch start() {
        thread.start();
        return this;
    }

    @Override
    public void run() {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(100));
                if (records.isEmpty()) {
                    continue;
                }
                long now = System.currentTimeMillis();
                boolean measuredSome = false;
                synchronized (this) {
                    for (ConsumerRecord<String, byte[]> record : records) {
                        if (!measured.contains(new TopicPartition(record.topic(), record.partition()))) {
                            others++;
                            continue;
                        }
                        if (warmsUp(record.key())) {
                            warmups++;
                            lastProgressMs = now;
                            continue;
                        }
                        measuredSome = true;
                        if (span.count() == seenAtMs.length) {
                            seenAtMs = java.util.Arrays.copyOf(seenAtMs, seenAtMs.length * 2);
                        }
                        seenAtMs[(int) span.count()] = now;
                        span = span.plus(now);
                        keys.add(record.key());
                        int index = requestIndex(record.key(), idPrefix);
                        if (sentAtMs != null && index >= 0) {
                            long sent = sentAtMs.get(index);
                            if (sent > 0) {
                                latenciesMs.add(now - sent);
                            }
                        }
                    }
                    lastProgressMs = now;
                }
                if (measuredSome) {
                    Map<String, Double> sample = cpu.get();
                    synchronized (this) {
                        if (firstCpu == null) {
                            firstCpu = sample;
                        }
                        lastCpu = sample;
                    }
                }
            }
        } catch (WakeupException e) {
            // closing
        } catch (RuntimeException e) {
            failure = e;
        }
    }

    synchronized Span span() {
        return span;
    }

    /** Whether the record of this key is a warm-up request's (counted apart, not measured). */
    boolean warmsUp(String key) {
        return warmsUp(key, idPrefix, measuredFrom);
    }

    /** Whether {@code key} is {@code idPrefix + i} with {@code i < measuredFrom}. */
    static boolean warmsUp(String key, String idPrefix, int measuredFrom) {
        int index = requestIndex(key, idPrefix);
        return index >= 0 && index < measuredFrom;
    }

    /** How many requests warm up: those with an index below this. */
    int measuredFrom() {
        return measuredFrom;
    }

    /** Records on the measured partitions of the warm-up's requests. */
    synchronized long warmups() {
        return warmups;
    }

    /** The {@code i} of a key {@code idPrefix + i}; -1 for any other key. */
    static int requestIndex(String key, String idPrefix) {
        if (key == null || !key.startsWith(idPrefix) || key.length() == idPrefix.length()) {
            return -1;
        }
        try {
            return Integer.parseInt(key, idPrefix.length(), key.length(), 10);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * Records per second between the record at {@code from} and the one at {@code to} of the
     * order seen (fractions of the count): {@code middle(0.1, 0.9)} leaves out start-up and tail.
     */
    synchronized double perSecondBetween(double from, double to) {
        return perSecondBetween(java.util.Arrays.copyOf(seenAtMs, (int) span.count()), from, to);
    }

    static double perSecondBetween(long[] seenAtMs, double from, double to) {
        int first = (int) Math.floor(from * (seenAtMs.length - 1));
        int last = (int) Math.floor(to * (seenAtMs.length - 1));
        if (seenAtMs.length < 2 || last <= first || seenAtMs[last] <= seenAtMs[first]) {
            return 0;
        }
        return (last - first) * 1000.0 / (seenAtMs[last] - seenAtMs[first]);
    }

    /** Distinct keys among the measured records. */
    synchronized int distinctKeys() {
        return keys.size();
    }

    /** Records seen on the counted (not measured) partitions. */
    synchronized long others() {
        return others;
    }

    /** When any record was last seen (or the watch began). */
    synchronized long lastProgressMs() {
        return lastProgressMs;
    }

    synchronized List<Long> latenciesMs() {
        return List.copyOf(latenciesMs);
    }

    /** CPU seconds per process role between the first measured record and the last; empty before two samples. */
    synchronized Map<String, Double> cpuBetweenFirstAndLast() {
        if (firstCpu == null || lastCpu == null) {
            return Map.of();
        }
        Map<String, Double> used = new java.util.LinkedHashMap<>();
        lastCpu.forEach((role, seconds) -> {
            Double before = firstCpu.get(role);
            if (before != null && before >= 0 && seconds >= 0) {
                used.put(role, seconds - before);
            }
        });
        return used;
    }

    RuntimeException failure() {
        return failure;
    }

    @Override
    public void close() {
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        consumer.close(Duration.ofSeconds(5));
    }
}
