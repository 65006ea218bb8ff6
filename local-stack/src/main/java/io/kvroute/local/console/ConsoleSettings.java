package io.kvroute.local.console;

import io.kvroute.router.config.RouterConfig;
import java.time.Duration;

/**
 * How a console runs: its port on 127.0.0.1 (0: any free), when a worker's telemetry counts as
 * stale, how much it keeps in memory (the newest decisions and dead letters), and how far back a
 * request's story is looked for. Validated when made, naming the bad value.
 *
 * @param port the HTTP port on 127.0.0.1, 0 for any free one
 * @param staleAfter telemetry older than this marks a worker stale (the router's default
 *     {@code router.telemetry.ttl.ms}: it routes nothing to such a worker)
 * @param decisionsKept the newest decisions kept for the decisions page
 * @param deadLettersKept the newest dead letters kept (counts cover every one read)
 * @param storyLookback a request's story is read from records this recent
 * @param storyTimeout the longest one story read may take
 */
public record ConsoleSettings(int port, Duration staleAfter, int decisionsKept, int deadLettersKept, Duration storyLookback,
                              Duration storyTimeout) {
    public static final int DEFAULT_PORT = 8090;
    public static final Duration DEFAULT_STALE_AFTER = Duration.ofMillis(RouterConfig.DEFAULT_TELEMETRY_TTL_MS);
    public static final int DEFAULT_DECISIONS_KEPT = 2_000;
    public static final int DEFAULT_DEAD_LETTERS_KEPT = 500;
    public static final Duration DEFAULT_STORY_LOOKBACK = Duration.ofHours(6);
    public static final Duration DEFAULT_STORY_TIMEOUT = Duration.ofSeconds(15);
    static final int MAX_KEPT = 1_000_000;

    public ConsoleSettings {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("console port must be 0 (any free port) or 1-65535, was " + port);
        }
        requirePositive("stale-after", staleAfter);
        requirePositive("story lookback", storyLookback);
        requirePositive("story timeout", storyTimeout);
        if (decisionsKept < 1 || decisionsKept > MAX_KEPT) {
            throw new IllegalArgumentException("decisions kept must be 1-" + MAX_KEPT + ", was " + decisionsKept);
        }
        if (deadLettersKept < 1 || deadLettersKept > MAX_KEPT) {
            throw new IllegalArgumentException("dead letters kept must be 1-" + MAX_KEPT + ", was " + deadLettersKept);
        }
    }

    public static ConsoleSettings defaults() {
        return onPort(DEFAULT_PORT);
    }

    public static ConsoleSettings onPort(int port) {
        return new ConsoleSettings(port, DEFAULT_STALE_AFTER, DEFAULT_DECISIONS_KEPT, DEFAULT_DEAD_LETTERS_KEPT, DEFAULT_STORY_LOOKBACK,
                DEFAULT_STORY_TIMEOUT);
    }

    private static void requirePositive(String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be a positive duration, was " + value);
        }
    }
}
