package io.kvroute.bench.jmh;

import io.kvroute.router.routing.FleetView;
import io.kvroute.router.routing.KvEventIndex;
import io.kvroute.router.routing.Policies;
import io.kvroute.router.routing.RouteRequest;
import io.kvroute.router.routing.Router;
import io.kvroute.router.routing.RouterState;
import io.kvroute.router.routing.RoutingResult;
import io.kvroute.router.routing.RoutingSettings;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of one routing decision ({@link Router#route(RouteRequest, FleetView, long)}) over
 * fleets of 100 to 10,000 workers, with the KV-event index and the approximate prefix index each
 * holding 1M (block, worker) pairs, for kvroute's policy and Dynamo's for comparison. Sample mode
 * reports the percentiles of single decisions. Each decision is accounted as in production
 * (pending load, routed blocks), and the clock advances 1 ms per decision so pending load
 * expires: a steady state of about a thousand decisions a second.
 *
 * <p>The fork runs G1 with {@code -Xmx1g} and a heap that grows on demand: pinning it at 1 GB
 * ({@code -Xms1g}) measured a p99 several times higher on 2 cores, from G1's concurrent work
 * competing with the benchmark thread (the parallel collector does not show it).
 *
 * <p>Run as described in the package documentation ({@code package-info.java}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
public class DecisionCostBenchmark {
    public static final int BLOCKS = 1_000_000;
    private static final int REQUESTS = 8_192;

    @Param({"100", "1000", "10000"})
    public int workers;

    @Param({"kvroute", "dynamo-kv"})
    public String policy;

    /** The router's candidate sample ({@code router.candidate.sample.size}); {@code -p sample=32,64} compares sizes in one run. */
    @Param({"" + RoutingSettings.DEFAULT_CANDIDATE_SAMPLE_SIZE})
    public int sample;

    /**
     * Share of the indexed prompts whose conversation blocks their GPU reported in host memory
     * ({@code -p hostShare=0,0.5}); 0 is the workload measured before KV events named tiers.
     */
    @Param({"0"})
    public double hostShare;

    private Router router;
    private FleetView fleet;
    private RouteRequest[] requests;
    private int next;
    private long now;

    @Setup(Level.Trial)
    public void setUp() {
        DecisionWorkload workload = new DecisionWorkload(workers, 42);
        RoutingSettings settings = DecisionWorkload.settings(BLOCKS).withCandidateSampleSize(sample);
        KvEventIndex kvEvents = new KvEventIndex(BLOCKS);
        workload.fillKvEvents(kvEvents, BLOCKS, hostShare);
        RouterState state = new RouterState(settings, kvEvents);
        workload.fillRouted(state.prefixIndex());
        // a running router has had results: answer lengths are known, so every decision costs their decode
        state.outputLengths().completed(300);
        router = new Router(Policies.create(policy, state), state);
        fleet = workload.fleet();
        requests = workload.requests(REQUESTS);
        now = DecisionWorkload.START_MS;
    }

    @Benchmark
    public RoutingResult decision() {
        RouteRequest request = requests[next];
        next = (next + 1) % REQUESTS;
        now++;
        return router.route(request, fleet, now);
    }
}
