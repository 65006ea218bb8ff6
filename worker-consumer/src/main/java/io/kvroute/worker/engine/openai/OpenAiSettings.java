package io.kvroute.worker.engine.openai;

import java.net.URI;
import java.util.Objects;
import java.util.Set;

/**
 * How to reach one OpenAI-compatible server (vLLM, SGLang, llama.cpp...). Validated by the worker's
 * configuration; {@link #toString()} never shows the API key.
 *
 * @param endpoint            the server's base URL, e.g. {@code http://gpu-1:8000} (a trailing
 *                            {@code /v1} is accepted and dropped)
 * @param model               the served model name sent with every request
 * @param apiKey              sent as a Bearer token, or null
 * @param maxConcurrency      requests in flight at most; more wait inside the engine
 * @param requestTimeoutMs    a request that has not finished streaming by then fails (TIMEOUT)
 * @param connectTimeoutMs    TCP connect timeout
 * @param metricsIntervalMs   how often {@code /metrics} is scraped; 0 = never
 * @param rateLimitCooldownMs how long a 429 without Retry-After cools the worker down
 * @param cacheSaltField      the request body field a request's cache salt is sent in (vLLM's
 *                            {@code cache_salt}), or empty to send none, for servers that refuse
 *                            unknown fields
 */
public record OpenAiSettings(URI endpoint, String model, String apiKey, int maxConcurrency, long requestTimeoutMs,
                             long connectTimeoutMs, long metricsIntervalMs, long rateLimitCooldownMs, String cacheSaltField) {
    public static final int DEFAULT_MAX_CONCURRENCY = 64;
    public static final long DEFAULT_REQUEST_TIMEOUT_MS = 600_000;
    public static final long DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
    public static final long DEFAULT_METRICS_INTERVAL_MS = 1_000;
    public static final long DEFAULT_RATE_LIMIT_COOLDOWN_MS = 10_000;
    /** vLLM's field (0.9.0 and later): requests share cached prefix blocks only when their salts are equal. */
    public static final String DEFAULT_CACHE_SALT_FIELD = "cache_salt";
    /** What a body field name may be: letters, digits, '_', '-' and '.', or empty for none. */
    public static final String CACHE_SALT_FIELD_PATTERN = "[A-Za-z0-9_.-]{0,64}";
    /** Fields the request body already has: the cache salt must not overwrite them. */
    public static final Set<String> BODY_FIELDS = Set.of("model", "prompt", "messages", "max_tokens", "stream", "stream_options",
            "temperature", "top_p", "seed", "stop");

    /** Settings that send the cache salt in {@value #DEFAULT_CACHE_SALT_FIELD}. */
    public OpenAiSettings(URI endpoint, String model, String apiKey, int maxConcurrency, long requestTimeoutMs,
                          long connectTimeoutMs, long metricsIntervalMs, long rateLimitCooldownMs) {
        this(endpoint, model, apiKey, maxConcurrency, requestTimeoutMs, connectTimeoutMs, metricsIntervalMs, rateLimitCooldownMs,
                DEFAULT_CACHE_SALT_FIELD);
    }

    /** The same settings for another server (another GPU slot of a worker process). */
    public OpenAiSettings withEndpoint(URI other) {
        return new OpenAiSettings(other, model, apiKey, maxConcurrency, requestTimeoutMs, connectTimeoutMs, metricsIntervalMs,
                rateLimitCooldownMs, cacheSaltField);
    }

    public OpenAiSettings {
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(model, "model");
        String scheme = endpoint.getScheme();
        if (!"http".equals(scheme) && !"https".equals(scheme) || endpoint.getHost() == null) {
            throw new IllegalArgumentException("endpoint must be an http(s):// URL, was " + endpoint);
        }
        cacheSaltField = cacheSaltField == null ? "" : cacheSaltField;
        if (!cacheSaltField.matches(CACHE_SALT_FIELD_PATTERN) || BODY_FIELDS.contains(cacheSaltField)) {
            throw new IllegalArgumentException("cacheSaltField must be up to 64 letters, digits, '_', '-' or '.', and not a field "
                    + "the body already has, was '" + cacheSaltField + "'");
        }
        if (maxConcurrency < 1 || requestTimeoutMs < 1 || connectTimeoutMs < 1 || metricsIntervalMs < 0 || rateLimitCooldownMs < 0) {
            throw new IllegalArgumentException("limits must be positive: " + this);
        }
    }

    /** Settings with every default but the endpoint and model. */
    public static OpenAiSettings defaults(URI endpoint, String model) {
        return new OpenAiSettings(endpoint, model, null, DEFAULT_MAX_CONCURRENCY, DEFAULT_REQUEST_TIMEOUT_MS,
                DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_METRICS_INTERVAL_MS, DEFAULT_RATE_LIMIT_COOLDOWN_MS);
    }

    /** These settings with the cache salt sent in {@code field}, or not sent when it is empty. */
    public OpenAiSettings withCacheSaltField(String field) {
        return new OpenAiSettings(endpoint, model, apiKey, maxConcurrency, requestTimeoutMs, connectTimeoutMs, metricsIntervalMs,
                rateLimitCooldownMs, field);
    }

    /** {@code <base>/<path>}, where base is the endpoint without a trailing slash or {@code /v1}. */
    public URI resolve(String path) {
        String base = endpoint.toString().replaceAll("/+$", "");
        if (base.endsWith("/v1")) {
            base = base.substring(0, base.length() - 3);
        }
        return URI.create(base + path);
    }

    @Override
    public String toString() {
        return "OpenAiSettings[endpoint=" + endpoint + ", model=" + model + ", apiKey=" + (apiKey == null ? "none" : "***")
                + ", maxConcurrency=" + maxConcurrency + ", requestTimeoutMs=" + requestTimeoutMs + ", connectTimeoutMs="
                + connectTimeoutMs + ", metricsIntervalMs=" + metricsIntervalMs + ", rateLimitCooldownMs=" + rateLimitCooldownMs
                + ", cacheSaltField=" + (cacheSaltField.isEmpty() ? "(none)" : cacheSaltField) + "]";
    }
}
