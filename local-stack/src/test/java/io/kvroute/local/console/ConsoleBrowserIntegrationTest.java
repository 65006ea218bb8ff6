package io.kvroute.local.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvroute.bench.sim.FleetSpec;
import io.kvroute.ingress.client.ClientConfig;
import io.kvroute.ingress.client.Completion;
import io.kvroute.ingress.client.KvrouteClient;
import io.kvroute.ingress.client.SubmitRequest;
import io.kvroute.local.stack.KvrouteServices;
import io.kvroute.local.stack.LocalStack;
import io.kvroute.schemas.v1.ResponseStatus;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console in a real browser: a local stack (real broker, registry, router, two simulated GPUs),
 * one request submitted through the client and one garbage record dead-lettered, the console on
 * the stack, and Debian's headless Chromium rendering its pages. The rendered DOM must show the
 * fleet's workers, the request's decision and its chosen GPU, and the dead letter; the prompt's
 * text must appear nowhere.
 */
class ConsoleBrowserIntegrationTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int BUDGET_MS = 3_000;

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void shouldRenderTheFleetAndARequestsDecisionWithoutItsPromptInChromium() throws Exception {
        assumeTrue(HeadlessChromium.installed(), HeadlessChromium.MISSING);
        String secret = "console-secret-" + UUID.randomUUID();
        String prompt = "You are a careful assistant. " + secret + " What is a KV cache?";
        try (LocalStack stack = new LocalStack(dir.resolve("stack"), FleetSpec.parse("us-east=1@5,eu-west=1@40"), "kvroute",
                Map.of("worker.sim.speed", "4")).start()) {
            ClientConfig config = ClientConfig.of(Map.of(
                    ClientConfig.BOOTSTRAP_SERVERS, stack.bootstrapServers(),
                    ClientConfig.SCHEMA_REGISTRY_URL, stack.registryUrl(),
                    ClientConfig.TOPIC_PREFIX, stack.topics().prefix(),
                    ClientConfig.TENANT, "console-test"));
            Completion completion;
            try (KvrouteClient client = KvrouteClient.create(config)) {
                completion = client.submit(SubmitRequest.builder().customId("console-1").model(KvrouteServices.MODEL)
                        .prompt(prompt).maxTokens(16).build()).get(60, TimeUnit.SECONDS);
            }
            assertThat(completion.status()).isEqualTo(ResponseStatus.COMPLETED);
            sendGarbage(stack, "console-garbage");

            try (Console console = Console.start(config, ConsoleSettings.onPort(0), Clock.systemUTC())) {
                await().atMost(Duration.ofSeconds(20)).until(() -> api(console, "/api/fleet").get("workerCount").asInt() == 2
                        && api(console, "/api/dlq").get("read").asInt() >= 1);
                JsonNode decisions = api(console, "/api/decisions?tenant=console-test");
                assertThat(decisions.get("decisions")).hasSize(1);
                String chosen = decisions.at("/decisions/0/workerId").asText();
                assertThat(chosen).isEqualTo(completion.workerId());

                HeadlessChromium chromium = new HeadlessChromium(dir.resolve("chromium"));
                String fleet = chromium.dumpDom(console.url() + "fleet", BUDGET_MS);
                assertThat(fleet).contains("data-worker-id=\"us-east-0\"").contains("data-worker-id=\"eu-west-0\"")
                        .contains("HEALTHY");

                String story = chromium.dumpDom(console.url() + "request/" + completion.requestId(), BUDGET_MS);
                assertThat(story).as("the request page shows the decision and its chosen GPU")
                        .contains(completion.requestId()).contains("DISPATCHED").contains(chosen + " (")
                        .contains("COMPLETED").contains("dispatch");
                assertThat(story).as("the prompt is never shown").doesNotContain(secret).doesNotContain("What is a KV cache");
                assertThat(api(console, "/api/request/" + completion.requestId()).toString()).doesNotContain(secret);

                String dlq = chromium.dumpDom(console.url() + "dlq", BUDGET_MS);
                assertThat(dlq).contains("console-garbage").contains(stack.topics().requests().name());
            }
        }
    }

    private JsonNode api(Console console, String path) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(console.url() + path.substring(1))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private static void sendGarbage(LocalStack stack, String key) {
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers", stack.bootstrapServers()),
                new StringSerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(stack.topics().requests().name(), key, "{\"not\": \"avro\"}".getBytes(StandardCharsets.UTF_8)));
        }
    }
}
