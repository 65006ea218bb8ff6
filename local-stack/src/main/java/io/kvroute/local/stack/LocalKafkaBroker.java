package io.kvroute.local.stack;

import io.kvroute.platform.process.ChildJvm;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.Uuid;

/**
 * A real single-node Kafka broker in KRaft mode (combined broker + controller), run as a child
 * JVM from this process's own classpath ({@code kafka_2.13} is a dependency), on 127.0.0.1.
 * The storage is formatted on first start; a restart on the same directory keeps the data.
 */
public final class LocalKafkaBroker implements AutoCloseable {
    private final Path dir;
    private final int port;
    private final int controllerPort;
    private final String heap;
    private ChildJvm process;

    public LocalKafkaBroker(Path dir, String heap) {
        this.dir = dir.toAbsolutePath();
        this.heap = heap;
        this.port = ChildJvm.freePort();
        this.controllerPort = ChildJvm.freePort();
    }

    public LocalKafkaBroker start() {
        try {
            Files.createDirectories(dir);
            Path config = writeConfig();
            if (!Files.exists(dir.resolve("data/meta.properties"))) {
                format(config);
            }
            process = ChildJvm.start("kafka-broker", jvmArgs(), ChildJvm.currentClasspath(),
                    "kafka.Kafka", List.of(config.toString()), dir, dir.resolve("broker.log"));
            process.awaitReady(() -> ChildJvm.portOpen(port), Duration.ofSeconds(60));
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the broker directory " + dir, e);
        }
    }

    private List<String> jvmArgs() {
        return List.of("-Xmx" + heap, "-Xms128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dlog4j2.configurationFile=" + writeLogConfig());
    }

    private void format(Path config) {
        ChildJvm formatter = ChildJvm.start("kafka-storage-format", jvmArgs(), ChildJvm.currentClasspath(),
                "kafka.tools.StorageTool",
                List.of("format", "-t", Uuid.randomUuid().toString(), "-c", config.toString()),
                dir, dir.resolve("format.log"));
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (formatter.isAlive() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                formatter.close();
                throw new IllegalStateException("interrupted formatting broker storage", e);
            }
        }
        formatter.close();
        if (!Files.exists(dir.resolve("data/meta.properties"))) {
            throw new IllegalStateException("formatting the broker storage failed; see " + dir.resolve("format.log"));
        }
    }

    private Path writeConfig() throws IOException {
        Properties p = new Properties();
        p.setProperty("process.roles", "broker,controller");
        p.setProperty("node.id", "1");
        p.setProperty("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        p.setProperty("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.setProperty("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.setProperty("controller.listener.names", "CONTROLLER");
        p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.setProperty("inter.broker.listener.name", "PLAINTEXT");
        p.setProperty("log.dirs", dir.resolve("data").toString());
        p.setProperty("auto.create.topics.enable", "false");
        p.setProperty("num.partitions", "1");
        p.setProperty("offsets.topic.replication.factor", "1");
        p.setProperty("offsets.topic.num.partitions", "8");
        p.setProperty("transaction.state.log.replication.factor", "1");
        p.setProperty("transaction.state.log.min.isr", "1");
        p.setProperty("transaction.state.log.num.partitions", "8");
        p.setProperty("share.coordinator.state.topic.replication.factor", "1");
        p.setProperty("group.initial.rebalance.delay.ms", "0");
        p.setProperty("log.segment.bytes", "67108864");
        p.setProperty("log.retention.check.interval.ms", "60000");
        Path file = dir.resolve("server.properties");
        try (var out = Files.newBufferedWriter(file)) {
            p.store(out, "kvroute local stack broker");
        }
        return file;
    }

    private String writeLogConfig() {
        Path file = dir.resolve("broker-log4j2.properties");
        try {
            Files.writeString(file, String.join("\n",
                    "rootLogger.level = WARN",
                    "rootLogger.appenderRef.out.ref = OUT",
                    "appender.out.type = Console",
                    "appender.out.name = OUT",
                    "appender.out.layout.type = PatternLayout",
                    "appender.out.layout.pattern = %d %p %c{1} %m%n",
                    // transactions and group offsets are what a crash leaves pending: log their recovery
                    "logger.txn.name = kafka.coordinator.transaction",
                    "logger.txn.level = INFO",
                    "logger.group.name = org.apache.kafka.coordinator.group",
                    "logger.group.level = INFO", ""));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file.toString();
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    public long pid() {
        return process.pid();
    }

    /** Stops the broker abruptly (a crash); {@link #start()} brings it back on the same port and data. */
    public void kill() {
        process.kill();
    }

    @Override
    public void close() {
        if (process != null) {
            process.close();
        }
    }
}
