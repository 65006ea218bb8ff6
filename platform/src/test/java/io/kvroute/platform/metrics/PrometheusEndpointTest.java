package io.kvroute.platform.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.platform.health.HealthStatus;
import io.kvroute.platform.health.ProcessHealth;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class PrometheusEndpointTest {
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void shouldServeEachProbeAsItsCheckSaysAtTheTimeOfTheRequest() throws Exception {
        AtomicReference<HealthStatus> ready = new AtomicReference<>(HealthStatus.down("streams REBALANCING"));
        ProcessHealth health = new ProcessHealth(() -> HealthStatus.up("streams REBALANCING"), ready::get);
        try (PrometheusEndpoint endpoint = PrometheusEndpoint.start("127.0.0.1", 0, PrometheusEndpoint.newRegistry(), health)) {
            HttpResponse<String> live = get(endpoint, "/health/live");
            HttpResponse<String> notReady = get(endpoint, "/health/ready");
            ready.set(HealthStatus.up("streams RUNNING"));
            HttpResponse<String> nowReady = get(endpoint, "/health/ready");

            assertThat(live.statusCode()).isEqualTo(200);
            assertThat(live.body()).isEqualTo("{\"status\":\"UP\",\"detail\":\"streams REBALANCING\"}");
            assertThat(notReady.statusCode()).isEqualTo(503);
            assertThat(notReady.body()).isEqualTo("{\"status\":\"DOWN\",\"detail\":\"streams REBALANCING\"}");
            assertThat(nowReady.statusCode()).isEqualTo(200);
        }
    }

    @Test
    void shouldAnswerDownWithTheReasonWhenACheckThrows() throws Exception {
        ProcessHealth health = new ProcessHealth(() -> {
            throw new IllegalStateException("no \"state\" yet");
        }, () -> HealthStatus.up("ok"));
        try (PrometheusEndpoint endpoint = PrometheusEndpoint.start("127.0.0.1", 0, PrometheusEndpoint.newRegistry(), health)) {
            HttpResponse<String> live = get(endpoint, "/health/live");

            assertThat(live.statusCode()).isEqualTo(503);
            assertThat(live.body()).isEqualTo("{\"status\":\"DOWN\",\"detail\":\"the check failed: "
                    + "java.lang.IllegalStateException: no \\\"state\\\" yet\"}");
        }
    }

    @Test
    void shouldKeepServingMetrics() throws Exception {
        try (PrometheusEndpoint endpoint = PrometheusEndpoint.start("127.0.0.1", 0, PrometheusEndpoint.newRegistry())) {
            endpoint.registry().counter("kvroute.test.things").increment();

            HttpResponse<String> metrics = get(endpoint, "/metrics");

            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.body()).contains("kvroute_test_things_total 1.0");
            assertThat(get(endpoint, "/health/ready").statusCode()).isEqualTo(200);
        }
    }

    private HttpResponse<String> get(PrometheusEndpoint endpoint, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoint.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
