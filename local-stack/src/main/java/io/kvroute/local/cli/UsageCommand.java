package io.kvroute.local.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.kvroute.ingress.cli.ConnectionOptions;
import io.kvroute.ingress.cli.DurationConverter;
import io.kvroute.ingress.client.ClientConfig;
import io.kvroute.ingress.client.CollectResult;
import io.kvroute.ingress.client.CollectTarget;
import io.kvroute.ingress.client.ResponseCollector;
import io.kvroute.ingress.client.UsageReport;
import io.kvroute.router.routing.RegionProfile;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvroute usage}: tokens and spend per tenant, model and region, read from the results on the responses topic
 * the connection's settings name. With topics per tenant a tenant's connection reads its own responses topic only,
 * so a tenant sees only its own use. With shared topics, a reader of the shared topic sees every tenant's, or one
 * tenant's with {@code --tenant}.
 */
@Command(name = "usage", mixinStandardHelpOptions = true,
        description = "Tokens and spend per tenant, model and region, from the results (prompt, cached and completion tokens; "
                + "spend at the regions' prices per million tokens).")
public final class UsageCommand implements Callable<Integer> {
    @Mixin
    ConnectionOptions connection = new ConnectionOptions();

    @Spec
    CommandSpec spec;

    @Option(names = "--tenant", description = "Only this tenant's results.")
    String tenant;

    @Option(names = "--since", converter = DurationConverter.class, description = "Only results of the last this long, e.g. 24h (default: all kept).")
    Duration since;

    @Option(names = "--region-profiles", paramLabel = "SPEC", defaultValue = "",
            description = "Prices as the router's router.region.profiles: name@delayMs:pricePerMillionTokens,... (default: none, spend 0).")
    String regionProfiles;

    @Option(names = "--timeout", converter = DurationConverter.class, defaultValue = "2m",
            description = "Give up reading after this long (default ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the report as JSON.")
    Path json;

    private final Clock clock;

    public UsageCommand() {
        this(Clock.systemUTC());
    }

    UsageCommand(Clock clock) {
        this.clock = clock;
    }

    @Override
    public Integer call() throws Exception {
        Map<String, Double> prices;
        try {
            prices = RegionProfile.parseList(regionProfiles).stream()
                    .collect(Collectors.toMap(RegionProfile::name, RegionProfile::costPerMillionTokens, (a, b) -> b));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--region-profiles: " + e.getMessage());
        }
        ClientConfig config = connection.clientConfig(Map.of());
        CollectResult read = new ResponseCollector(config, clock).collect(CollectTarget.available(), timeout, (c, n) -> { });
        long sinceMs = since == null ? Long.MIN_VALUE : clock.millis() - since.toMillis();
        UsageReport report = UsageReport.of(read.completions(), sinceMs, tenant, region -> prices.getOrDefault(region, 0.0));
        print(report, config.responsesTopic(), System.out);
        if (json != null) {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("topic", config.responsesTopic());
            out.put("since_ms", since == null ? null : sinceMs);
            out.put("tenant", tenant);
            out.put("rows", report.rows());
            out.put("total", report.total());
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), out);
        }
        return 0;
    }

    static void print(UsageReport report, String topic, PrintStream out) {
        out.println("usage from " + topic);
        out.printf("%-16s %-20s %-10s %9s %12s %12s %12s %12s%n", "tenant", "model", "region", "requests", "prompt", "cached",
                "completion", "spend");
        List<UsageReport.Row> rows = new java.util.ArrayList<>(report.rows());
        rows.add(report.total());
        for (UsageReport.Row r : rows) {
            out.printf("%-16s %-20s %-10s %9d %12d %12d %12d %12.6f%n", r.tenant(), r.model(), r.region(), r.requests(),
                    r.promptTokens(), r.cachedTokens(), r.completionTokens(), r.cost());
        }
    }
}
