package io.kvroute.local.console;

import io.kvroute.ingress.client.ClientConfig;
import io.kvroute.local.stack.LocalStack;
import io.kvroute.schemas.serde.Serdes;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A running kvroute console: a read-only view of one deployment's topics (fleet, decisions, one
 * request's story, dead letters) served as a web page on 127.0.0.1. It reads with group-less
 * {@code read_committed} consumers and writes nothing: no records, no offsets, no topics, no
 * schemas. Started by {@code kvroute console}, {@code kvroute up} and {@code kvroute demo --console}.
 */
public final class Console implements AutoCloseable {
    private final LiveFeeds feeds;
    private final ConsoleServer server;

    private Console(LiveFeeds feeds, ConsoleServer server) {
        this.feeds = feeds;
        this.server = server;
    }

    /** Reads the topics {@code config} names and serves the page; fails here, with a message, if a topic is missing or the port is taken. */
    public static Console start(ClientConfig config, ConsoleSettings settings, Clock clock) {
        // the registry is only read (schemas by id); a serde here never registers anything
        Serdes serdes = new Serdes(config.serdeConfig());
        FleetView fleet = new FleetView(clock, settings.staleAfter().toMillis());
        DecisionLog decisions = new DecisionLog(settings.decisionsKept());
        DeadLetterLog deadLetters = new DeadLetterLog(settings.deadLettersKept());
        RequestStories stories = new RequestStories(config, serdes, clock, settings.storyLookback(), settings.storyTimeout());
        LiveFeeds feeds = new LiveFeeds(config, serdes, fleet, decisions, deadLetters, settings.decisionsKept()).start();
        try {
            Map<String, Object> fixed = new LinkedHashMap<>();
            fixed.put("bootstrapServers", config.bootstrapServers());
            fixed.put("topicPrefix", config.topics().prefix());
            fixed.put("staleAfterMs", settings.staleAfter().toMillis());
            fixed.put("decisionsKept", settings.decisionsKept());
            fixed.put("deadLettersKept", settings.deadLettersKept());
            fixed.put("storyLookbackMs", settings.storyLookback().toMillis());
            ConsoleServer server = new ConsoleServer(settings.port(), fleet, decisions, deadLetters, stories, () -> {
                Map<String, Object> info = new LinkedHashMap<>(fixed);
                info.put("feedsFailure", feeds.failure());
                info.put("undecodable", feeds.undecodable());
                return info;
            }).start();
            return new Console(feeds, server);
        } catch (RuntimeException e) {
            feeds.close();
            throw e;
        }
    }

    /** A console on the embedded local stack ({@code kvroute up}, {@code kvroute demo --console}). */
    public static Console onLocalStack(LocalStack stack, ConsoleSettings settings, Clock clock) {
        return on(stack.bootstrapServers(), stack.registryUrl(), stack.topics().prefix(), settings, clock);
    }

    /** A console on a cluster the caller started ({@code kvroute chaos --console}), with no other client settings. */
    public static Console on(String bootstrapServers, String registryUrl, String topicPrefix, ConsoleSettings settings, Clock clock) {
        return start(ClientConfig.of(Map.of(
                ClientConfig.BOOTSTRAP_SERVERS, bootstrapServers,
                ClientConfig.SCHEMA_REGISTRY_URL, registryUrl,
                ClientConfig.TOPIC_PREFIX, topicPrefix,
                ClientConfig.CLIENT_ID, "kvroute-console")), settings, clock);
    }

    public int port() {
        return server.port();
    }

    /** The page's address, e.g. {@code http://127.0.0.1:8090/}. */
    public String url() {
        return "http://127.0.0.1:" + port() + "/";
    }

    @Override
    public void close() {
        server.close();
        feeds.close();
    }
}
