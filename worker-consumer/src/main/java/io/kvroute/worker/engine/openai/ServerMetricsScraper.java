package io.kvroute.worker.engine.openai;

import io.kvroute.worker.engine.openai.internal.LlamaCppSlots;
import io.kvroute.worker.engine.openai.internal.PrometheusText;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls an inference server's Prometheus {@code /metrics} page on an interval and keeps the last
 * {@link ServerMetrics}. A scrape that fails (unreachable, not 200, a page that does not parse or
 * is larger than {@value #MAX_PAGE_BYTES} bytes) marks the scraper failing until the next good one;
 * the engine then reports itself degraded.
 *
 * <p>When the page is llama.cpp's and tells no KV use (builds since mid-2025), the scraper also
 * reads the server's {@code /slots} page ({@link LlamaCppSlots}). That page is optional: a server
 * started with {@code --no-slots} answers it 501, after which it is not asked again and the KV use
 * stays unknown, which does not make the scrape fail.
 */
public final class ServerMetricsScraper implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ServerMetricsScraper.class);
    static final long MIN_SCRAPE_TIMEOUT_MS = 1_000;
    /** vLLM's page is a few hundred KiB; a larger one is not read, so a broken server cannot fill the worker's heap. */
    static final int MAX_PAGE_BYTES = 8 << 20;

    private final URI metricsUri;
    private final URI slotsUri;
    private final HttpClient client;
    private final String apiKey;
    private final Duration timeout;
    private ScheduledExecutorService scheduler;
    private volatile ServerMetrics latest;
    private volatile boolean failing;
    private volatile String lastError;
    private volatile boolean slotsUnavailable;

    public ServerMetricsScraper(URI metricsUri, HttpClient client, String apiKey, long intervalMs) {
        this(metricsUri, null, client, apiKey, intervalMs);
    }

    /** {@code slotsUri}: llama.cpp's {@code /slots} page, read when {@code /metrics} tells no KV use; null not to. */
    public ServerMetricsScraper(URI metricsUri, URI slotsUri, HttpClient client, String apiKey, long intervalMs) {
        this.metricsUri = metricsUri;
        this.slotsUri = slotsUri;
        this.client = client;
        this.apiKey = apiKey;
        this.timeout = Duration.ofMillis(Math.max(MIN_SCRAPE_TIMEOUT_MS, intervalMs));
    }

    /** Scrapes at once and then every {@code intervalMs} on a daemon thread. */
    public synchronized void start(long intervalMs, String name) {
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "metrics-scraper-" + name);
            t.setDaemon(true);
            return t;
        });
        scheduler.scheduleWithFixedDelay(this::scrape, 0, intervalMs, TimeUnit.MILLISECONDS);
    }

    /** Scrapes once; returns whether the page was read and understood. */
    public boolean scrape() {
        try {
            HttpResponse<InputStream> response = client.send(get(metricsUri, "text/plain;version=0.0.4"),
                    HttpResponse.BodyHandlers.ofInputStream());
            String page = bounded(response);
            if (response.statusCode() != 200) {
                return failed("HTTP " + response.statusCode());
            }
            ServerMetrics metrics = ServerMetrics.from(PrometheusText.parse(page), latest);
            latest = metrics.kvUsage() == null && metrics.family().equals("llamacpp") ? withSlots(metrics) : metrics;
            if (failing) {
                LOG.info("metrics of {} readable again", metricsUri);
            }
            failing = false;
            lastError = null;
            return true;
        } catch (IOException | IllegalArgumentException e) {
            return failed(e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return failed("interrupted");
        }
    }

    /** {@code metrics} with the KV use of the {@code /slots} page, or as they are when it cannot be read. */
    private ServerMetrics withSlots(ServerMetrics metrics) throws InterruptedException {
        if (slotsUri == null || slotsUnavailable) {
            return metrics;
        }
        try {
            HttpResponse<InputStream> response = client.send(get(slotsUri, "application/json"), HttpResponse.BodyHandlers.ofInputStream());
            String page = bounded(response);
            if (response.statusCode() == 404 || response.statusCode() == 501) {
                slotsUnavailable = true;
                LOG.info("{} answers HTTP {}: KV use of that server unknown (start it with --slots to report it)",
                        slotsUri, response.statusCode());
                return metrics;
            }
            if (response.statusCode() != 200) {
                return metrics;
            }
            return LlamaCppSlots.parse(page).map(metrics::withSlots).orElse(metrics);
        } catch (IOException e) {
            return metrics;
        }
    }

    /** The body as text, read up to {@link #MAX_PAGE_BYTES}; closing the stream early hangs up on a larger one. */
    private static String bounded(HttpResponse<InputStream> response) throws IOException {
        try (InputStream body = response.body()) {
            byte[] bytes = body.readNBytes(MAX_PAGE_BYTES + 1);
            if (bytes.length > MAX_PAGE_BYTES) {
                throw new IOException(response.uri() + " is larger than " + MAX_PAGE_BYTES + " bytes: not read");
            }
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    private HttpRequest get(URI uri, String accept) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(timeout).header("Accept", accept).GET();
        if (apiKey != null) {
            request.header("Authorization", "Bearer " + apiKey);
        }
        return request.build();
    }

    private boolean failed(String error) {
        if (!failing) {
            LOG.warn("cannot read the metrics of {}: {}; worker reports itself degraded", metricsUri, error);
        }
        failing = true;
        lastError = error;
        return false;
    }

    /** The last successfully scraped metrics, or null before the first. */
    public ServerMetrics latest() {
        return latest;
    }

    /** True after a failed scrape, until a good one. */
    public boolean failing() {
        return failing;
    }

    /** Why the last scrape failed, or null. */
    public String lastError() {
        return lastError;
    }

    @Override
    public synchronized void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
    }
}
