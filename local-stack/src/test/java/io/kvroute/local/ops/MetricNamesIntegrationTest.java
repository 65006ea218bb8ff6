package io.kvroute.local.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.kvroute.bench.sim.FleetSpec;
import io.kvroute.ingress.client.ClientConfig;
import io.kvroute.ingress.client.Completion;
import io.kvroute.ingress.client.KvrouteClient;
import io.kvroute.ingress.client.SubmitRequest;
import io.kvroute.local.stack.KvrouteServices;
import io.kvroute.platform.testing.TestKafka;
import io.kvroute.platform.testing.TestRegistry;
import io.kvroute.router.RouterApp;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.worker.WorkerApp;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every metric name that {@code deploy/prometheus/alerts.yml} and the Grafana dashboard query is one
 * that a running router or worker exports: a stack in this JVM serves traffic, its {@code /metrics}
 * are scraped, and each name an expression uses must be a sample name in a scrape. Names are compared
 * whole, suffix included ({@code _total}, {@code _count}, {@code _sum}, {@code _max}, {@code _bucket}),
 * so a rule that asks a summary for {@code _bucket} fails too.
 */
class MetricNamesIntegrationTest {
    private static final Path REPO = Path.of("").toAbsolutePath().getParent();
    private static final Path ALERTS = REPO.resolve("deploy/prometheus/alerts.yml");
    private static final Path DASHBOARDS = REPO.resolve("deploy/grafana/dashboards");
    /** Series Prometheus makes itself for each target, not exported by a process. */
    private static final Set<String> PROMETHEUS_OWN = Set.of("up");
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "by", "without", "on", "ignoring",
            "group_left", "group_right", "offset", "bool", "inf", "nan", "atan2");
    private static final Pattern IDENTIFIER = Pattern.compile("(?<![\\w.$])([a-zA-Z_:][a-zA-Z0-9_:]*)(\\s*\\()?");
    private static final Pattern GROUPING = Pattern.compile("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
    private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\((.*),\\s*\\w+\\s*\\)");
    private static final String QUOTA_TENANT = "ops-bulk";

    private final KvrouteTopics topics = new KvrouteTopics("ops" + System.nanoTime(), 2);
    private final FleetSpec fleet = FleetSpec.parse("us-east=1@0,eu-west=1@0");

    @Test
    void shouldExportEveryMetricNameTheAlertRulesAndTheDashboardUse() throws Exception {
        Map<String, Set<String>> used = new TreeMap<>();
        alertExpressions().forEach((where, expr) -> metricNames(expr).forEach(n -> used.computeIfAbsent(n, k -> new TreeSet<>()).add(where)));
        dashboardExpressions().forEach((where, expr) -> metricNames(expr).forEach(n -> used.computeIfAbsent(n, k -> new TreeSet<>()).add(where)));
        assertThat(used).as("metric names used by the rules and dashboards").isNotEmpty();

        Set<String> exported = new TreeSet<>(PROMETHEUS_OWN);
        Path state = Files.createTempDirectory("kvroute-ops");
        try (KvrouteServices services = new KvrouteServices(TestKafka.bootstrapServers(), TestRegistry.url(), topics, fleet, "kvroute",
                state, Map.of("router.metrics.port", "0", "worker.metrics.port", "0", "worker.sim.speed", "8",
                        "router.tenant.quotas", QUOTA_TENANT + "=1/-/reject")).start()) {
            driveTraffic();
            Path dump = Path.of("target", "metric-scrapes");
            Files.createDirectories(dump);
            for (RouterApp router : services.routers()) {
                exported.addAll(scrape("router", router.metricsPort(), dump));
            }
            for (WorkerApp worker : services.workers()) {
                exported.addAll(scrape("worker-" + worker.workerId(), worker.metricsPort(), dump));
            }
        }

        Map<String, Set<String>> missing = new TreeMap<>(used);
        missing.keySet().removeAll(exported);
        assertThat(missing).as("metric names queried (name -> where) that no process exported; scrapes in target/metric-scrapes")
                .isEmpty();
    }

    @Test
    void shouldFindTheMetricNamesOfAnExpression() {
        assertThat(metricNames("sum by (region) (rate(kvroute_router_requests_routed_total{region=~\"$region\"}[5m]))"
                + " / on(region) group_left max(kvroute_router_region_workers offset 1h) > bool 0.5 unless up == 0"))
                .containsExactlyInAnyOrder("kvroute_router_requests_routed_total", "kvroute_router_region_workers", "up");
        assertThat(metricNames("histogram_quantile(0.99, sum by (le) (rate(a_seconds_bucket[$__rate_interval])))"))
                .containsExactly("a_seconds_bucket");
        assertThat(metricNames("label_values(kvroute_worker_engine_running{region=\"x\"}, worker)"))
                .containsExactly("kvroute_worker_engine_running");
    }

    /** Requests that complete, and requests over a tenant's quota, so the lazily tagged counters exist. */
    private void driveTraffic() throws Exception {
        List<CompletableFuture<Completion>> completing = new ArrayList<>();
        List<CompletableFuture<Completion>> throttled = new ArrayList<>();
        try (KvrouteClient ops = client("ops"); KvrouteClient bulk = client(QUOTA_TENANT)) {
            for (int i = 0; i < 12; i++) {
                completing.add(ops.submit(SubmitRequest.builder().customId("ops-" + i).model(KvrouteServices.MODEL)
                        .prompt("You are an operator's assistant. ".repeat(20) + "question " + i).maxTokens(8).build()));
            }
            for (int i = 0; i < 3; i++) {
                throttled.add(bulk.submit(SubmitRequest.builder().customId("bulk-" + i).model(KvrouteServices.MODEL)
                        .prompt("bulk " + i).maxTokens(4).build()));
            }
            CompletableFuture.allOf(completing.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
            CompletableFuture.allOf(throttled.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
        }
        assertThat(completing).allSatisfy(f -> assertThat(f.join().status()).isEqualTo(ResponseStatus.COMPLETED));
        assertThat(throttled).as("a quota of one request a minute rejects the rest")
                .anySatisfy(f -> assertThat(f.join().status()).isEqualTo(ResponseStatus.REJECTED));
    }

    private KvrouteClient client(String tenant) {
        return KvrouteClient.create(ClientConfig.of(Map.of(
                ClientConfig.BOOTSTRAP_SERVERS, TestKafka.bootstrapServers(),
                ClientConfig.SCHEMA_REGISTRY_URL, TestRegistry.url(),
                ClientConfig.TOPIC_PREFIX, topics.prefix(),
                ClientConfig.TENANT, tenant)));
    }

    /** The sample names of one process's {@code /metrics}, kept in {@code dump} for whoever reads a failure. */
    private static Set<String> scrape(String process, Integer port, Path dump) throws IOException, InterruptedException {
        assertThat(port).as(process + " serves /metrics").isNotNull().isPositive();
        HttpResponse<String> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        Files.writeString(dump.resolve(process + ".txt"), response.body());
        Set<String> names = new TreeSet<>();
        for (String line : response.body().split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int end = 0;
            while (end < line.length() && line.charAt(end) != '{' && line.charAt(end) != ' ') {
                end++;
            }
            names.add(line.substring(0, end));
        }
        return names;
    }

    /** Each rule's expression, keyed by its alert (or recording) name. */
    private static Map<String, String> alertExpressions() throws IOException {
        JsonNode root = new YAMLMapper().readTree(ALERTS.toFile());
        Map<String, String> out = new TreeMap<>();
        for (JsonNode group : root.path("groups")) {
            for (JsonNode rule : group.path("rules")) {
                String name = rule.hasNonNull("alert") ? rule.get("alert").asText() : rule.path("record").asText();
                out.put("alerts.yml:" + name, rule.path("expr").asText());
            }
        }
        assertThat(out).as("rules in " + ALERTS).isNotEmpty();
        return out;
    }

    /** Every {@code expr} of every dashboard's panels, and the metrics of its {@code label_values} variables. */
    private static Map<String, String> dashboardExpressions() throws IOException {
        Map<String, String> out = new TreeMap<>();
        List<Path> files;
        try (var listing = Files.list(DASHBOARDS)) {
            files = listing.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        }
        assertThat(files).as("dashboards in " + DASHBOARDS).isNotEmpty();
        for (Path file : files) {
            JsonNode root = new ObjectMapper().readTree(file.toFile());
            collect(root, file.getFileName() + ":", out);
        }
        return out;
    }

    private static void collect(JsonNode node, String where, Map<String, String> out) {
        if (node.isObject()) {
            String here = node.hasNonNull("title") ? where + node.get("title").asText() + "/" : where;
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                boolean query = field.getKey().equals("expr") || field.getKey().equals("query");
                if (query && field.getValue().isTextual()) {
                    out.put(here + field.getKey() + "#" + out.size(), field.getValue().asText());
                } else {
                    collect(field.getValue(), here, out);
                }
            }
        } else if (node.isArray()) {
            node.forEach(child -> collect(child, where, out));
        }
    }

    /**
     * The metric names a PromQL expression (or a Grafana {@code label_values(metric, label)}) selects:
     * label matchers, ranges, grouping clauses, function calls and keywords stripped.
     */
    static Set<String> metricNames(String expr) {
        String e = expr;
        Matcher labelValues = LABEL_VALUES.matcher(e.trim());
        if (labelValues.matches()) {
            e = labelValues.group(1);
        }
        e = e.replaceAll("\"(\\\\.|[^\"\\\\])*\"", "\"\"").replaceAll("'(\\\\.|[^'\\\\])*'", "''");
        e = e.replaceAll("\\{[^}]*}", " ").replaceAll("\\[[^]]*]", " ");
        e = GROUPING.matcher(e).replaceAll(" ");
        Set<String> names = new TreeSet<>();
        Matcher m = IDENTIFIER.matcher(e);
        while (m.find()) {
            String name = m.group(1);
            if (m.group(2) == null && !KEYWORDS.contains(name.toLowerCase())) {
                names.add(name);
            }
        }
        return names;
    }
}
