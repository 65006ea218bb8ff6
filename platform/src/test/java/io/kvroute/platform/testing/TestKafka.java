package io.kvroute.platform.testing;

import java.util.Map;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * The one way integration tests get a Kafka broker: a real KRaft broker+controller in this JVM
 * (default), or the {@code apache/kafka} image through Testcontainers when run with
 * {@code -Dkvroute.test.broker=docker} on a machine with a Docker engine. One broker is shared by
 * all tests of a JVM; tests isolate themselves with their own topic prefix and application ids.
 */
public final class TestKafka {
    public static final String BROKER_PROPERTY = "kvroute.test.broker";
    private static volatile String bootstrapServers;
    private static AutoCloseable running;

    private TestKafka() {
    }

    public static synchronized String bootstrapServers() {
        if (bootstrapServers == null) {
            start();
        }
        return bootstrapServers;
    }

    private static void start() {
        // The in-process broker must never end the test JVM (Kafka halts on fatal faults, which
        // surefire then reports as a failed fork); a fault fails the test that meets it instead.
        org.apache.kafka.common.utils.internals.Exit.setExitProcedure((code, message) -> {
            throw new IllegalStateException("the test broker asked to exit(" + code + "): " + message);
        });
        org.apache.kafka.common.utils.internals.Exit.setHaltProcedure((code, message) -> {
            throw new IllegalStateException("the test broker asked to halt(" + code + "): " + message);
        });
        try {
            if ("docker".equals(System.getProperty(BROKER_PROPERTY))) {
                DockerKafka docker = DockerKafka.start();
                running = docker;
                bootstrapServers = docker.bootstrapServers();
            } else {
                KafkaClusterTestKit cluster = new KafkaClusterTestKit.Builder(
                        new TestKitNodes.Builder().setCombined(true).setNumBrokerNodes(1).setNumControllerNodes(1).build())
                        .setConfigProp("auto.create.topics.enable", "false")
                        .setConfigProp("group.initial.rebalance.delay.ms", "0")
                        .setConfigProp("offsets.topic.replication.factor", "1")
                        .setConfigProp("transaction.state.log.replication.factor", "1")
                        .setConfigProp("transaction.state.log.min.isr", "1")
                        .setConfigProp("offsets.topic.num.partitions", "4")
                        .setConfigProp("transaction.state.log.num.partitions", "4")
                        .build();
                cluster.format();
                cluster.startup();
                cluster.waitForReadyBrokers();
                running = cluster;
                bootstrapServers = cluster.bootstrapServers();
            }
            Runtime.getRuntime().addShutdownHook(new Thread(TestKafka::stop, "test-kafka-stop"));
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the test Kafka broker: " + e, e);
        }
    }

    private static void stop() {
        try {
            if (running != null) {
                running.close();
            }
        } catch (Exception ignored) {
            // the JVM is exiting
        }
    }

    /** Client settings every test client needs. */
    public static Map<String, Object> clientConfig() {
        return Map.of("bootstrap.servers", bootstrapServers());
    }
}
