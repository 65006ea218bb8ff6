package io.kvroute.local.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.bench.sim.FleetSpec;
import io.kvroute.local.console.Console;
import io.kvroute.local.console.ConsoleSettings;
import io.kvroute.schemas.v1.ResponseStatus;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A small {@code kvroute chaos} run as part of the suite: a real broker and registry, the router
 * and four workers as separate JVMs, every fault kind once or twice, poison among the requests.
 */
class ChaosIntegrationTest {

    @Test
    void shouldLoseNothingAndDoubleNothingThroughEveryKindOfFault() throws Exception {
        Map<FaultKind, Integer> faults = new EnumMap<>(FaultKind.class);
        faults.put(FaultKind.KILL_WORKER, 2);
        faults.put(FaultKind.HANG_WORKER, 1);
        faults.put(FaultKind.KILL_ROUTER, 1);
        faults.put(FaultKind.RESTART_BROKER, 1);
        faults.put(FaultKind.REGION_OUTAGE, 1);
        Path dir = Files.createTempDirectory("kvroute-chaos");
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        ChaosRun.Options options = new ChaosRun.Options(360, faults, 0.05, 11,
                FleetSpec.parse("us-east=2@5,eu-west=1@40,ap-south=1@90"), "kvroute", 1, 12,
                new FaultInjector.Timings(Duration.ofSeconds(2), Duration.ofSeconds(15), Duration.ofSeconds(15)),
                Duration.ofMinutes(3), dir, Map.of(), 1);

        // the console a user starts with chaos --console, on the run's cluster: it shows the run's workers
        AtomicReference<String> fleetPage = new AtomicReference<>("");
        ChaosReport report = new ChaosRun(options, new PrintStream(progress, true, StandardCharsets.UTF_8))
                .alongside((bootstrap, registryUrl) -> {
                    Console console = Console.on(bootstrap, registryUrl, "kvroute", ConsoleSettings.onPort(0), Clock.systemUTC());
                    fleetPage.set(awaitFleet(console.url() + "api/fleet", "ap-south-0"));
                    return console;
                })
                .run();

        report.printTable(System.out);
        assertThat(report.faults()).containsAllEntriesOf(faults);
        assertThat(report.lost()).as("requests with no terminal: %s", report.lostStories()).isZero();
        // a duplicate from a transaction the broker split, a worker's or a router's (docs/reliability.md, "Chaos testing"), is not the client's
        assertThat(report.duplicatedResults()).isEqualTo(report.duplicatedBySplitTransactions());
        // and one from a router transaction the broker split (its dispatch committed, its offset commit aborted) is not the router's
        assertThat(report.dispatchedTwice()).isEqualTo(report.dispatchedTwiceBySplitTransactions());
        assertThat(report.poison()).isEqualTo(18);
        assertThat(report.poisonInDlq()).isEqualTo(18);
        assertThat(report.count(ResponseStatus.REJECTED)).isEqualTo(18);
        assertThat(report.count(ResponseStatus.COMPLETED)).isEqualTo(342);
        assertThat(report.dispatchedToSilentRegion()).isZero();
        assertThat(report.clientDisagreements()).isZero();
        assertThat(report.passed()).isTrue();
        assertThat(fleetPage.get()).contains("us-east-0", "us-east-1", "eu-west-0", "ap-south-0");
    }

    /** The console's fleet JSON once it names {@code worker}, or as it is after 30 s. */
    private static String awaitFleet(String url, String worker) {
        HttpClient http = HttpClient.newHttpClient();
        String body = "";
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!body.contains(worker) && System.nanoTime() < deadline) {
            try {
                body = http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString()).body();
                Thread.sleep(500);
            } catch (IOException e) {
                body = "";
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return body;
            }
        }
        return body;
    }
}
