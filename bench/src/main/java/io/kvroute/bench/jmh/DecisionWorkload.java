package io.kvroute.bench.jmh;

import io.kvroute.router.routing.ApproximatePrefixIndex;
import io.kvroute.router.routing.FleetView;
import io.kvroute.router.routing.KvEvent;
import io.kvroute.router.routing.KvEventIndex;
import io.kvroute.router.routing.RouteRequest;
import io.kvroute.router.routing.RoutingSettings;
import io.kvroute.router.routing.WorkerSnapshot;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A steady-state router for measuring one decision: a fleet of {@code workers} GPUs with varied
 * load, a KV-event index and an approximate prefix index each holding {@code blocks}
 * (block, worker) pairs, and requests of {@value #PROMPT_BLOCKS}-block prompts sharing prefixes.
 *
 * <p>The prompts come from {@value #TENANTS} tenants (Zipf-like popularity): a
 * {@value #SYSTEM_BLOCKS}-block system prompt per tenant, then one of its {@value #CONVERSATIONS} conversations. Each
 * tenant's prompts live on {@value #REPLICAS} home workers, as a prefix-aware router would have
 * placed them, so a request's leading blocks have a few holders among many workers. Everything
 * derives from a fixed seed.
 */
public final class DecisionWorkload {
    public static final String MODEL = "llama-3.1-8b";
    public static final int PROMPT_BLOCKS = 30;
    public static final int SYSTEM_BLOCKS = 10;
    public static final int TENANTS = 2_000;
    public static final int REPLICAS = 3;
    public static final int CONVERSATIONS = 50;
    public static final int BLOCK_TOKENS = 64;
    public static final long START_MS = 1_000_000_000L;
    public static final long PENDING_MS = 1_000;

    private final int workers;
    private final SplittableRandom random;
    private final List<WorkerSnapshot> snapshots = new ArrayList<>();

    public DecisionWorkload(int workers, long seed) {
        this.workers = workers;
        this.random = new SplittableRandom(seed);
        for (int i = 0; i < workers; i++) {
            snapshots.add(WorkerSnapshot.builder(workerId(i), i % 4 == 3 ? "eu-west" : "us-east")
                    .ownedPartitions(List.of(i % 8, (i + 1) % 8))
                    .running(random.nextInt(120)).waiting(random.nextInt(8))
                    .runningPrefill(random.nextInt(4)).runningDecode(random.nextInt(100))
                    .queuedPrefillTokens(random.nextInt(30_000)).kvBlocks(28_000, random.nextInt(20_000))
                    .maxRunning(256).tokensPerSecond(20_000 + random.nextInt(10_000))
                    .observedAtMs(START_MS - random.nextInt(500)).build());
        }
    }

    /**
     * Settings for a long run at a fixed clock step: telemetry never goes stale, and pending load
     * expires after {@value #PENDING_MS} ms (the benchmark's telemetry never refreshes, which is
     * what clears the ledger in production).
     */
    public static RoutingSettings settings(int blocks) {
        RoutingSettings d = RoutingSettings.defaults();
        return new RoutingSettings(Long.MAX_VALUE / 4, Set.of("us-east", "eu-west"), d.saturationQueueFactor(),
                d.saturationKvUsage(), d.kvHeadroom(), d.prefillTokensPerSecond(), d.decodeReserveTokens(),
                d.ledgerGraceMs(), PENDING_MS, blocks, blocks, d.randomSeed(), d.candidateSampleSize(),
                d.candidatePrefixHolders(), d.engineModel());
    }

    public static String workerId(int i) {
        return String.format("gpu-%05d", i);
    }

    public List<WorkerSnapshot> snapshots() {
        return snapshots;
    }

    public FleetView fleet() {
        return FleetView.of(snapshots);
    }

    /** Stores prompts on their tenants' home workers until the index holds {@code blocks} pairs. */
    public void fillKvEvents(KvEventIndex index, int blocks) {
        fillKvEvents(index, blocks, 0.0);
    }

    /**
     * Stores prompts on their tenants' home workers until the index holds {@code blocks} entries;
     * of a share {@code hostShare} of the prompts, the worker then reports the conversation's
     * blocks (after the system prompt) offloaded to host memory, each a host-memory mark.
     */
    public void fillKvEvents(KvEventIndex index, int blocks, double hostShare) {
        long[] sequence = new long[workers];
        while (index.size() < blocks) {
            int tenant = tenant();
            int worker = home(tenant, random.nextInt(REPLICAS));
            long[] prompt = prompt(tenant, random.nextInt(CONVERSATIONS));
            int room = (int) Math.min(prompt.length, blocks - index.size());
            index.apply(KvEvent.stored(workerId(worker), sequence[worker]++, Arrays.copyOf(prompt, room)));
            // drawn only when asked, so the default workload stays the one measured before tiers
            if (hostShare > 0 && random.nextDouble() < hostShare) {
                int marks = (int) Math.min(room - SYSTEM_BLOCKS, blocks - index.size());
                if (marks > 0) {
                    index.apply(KvEvent.offloaded(workerId(worker), sequence[worker]++,
                            Arrays.copyOfRange(prompt, SYSTEM_BLOCKS, SYSTEM_BLOCKS + marks)));
                }
            }
        }
    }

    /** Records prompts as routed to their tenants' home workers until the index is full. */
    public void fillRouted(ApproximatePrefixIndex index) {
        while (index.size() < index.capacity()) {
            int tenant = tenant();
            index.record(workerId(home(tenant, random.nextInt(REPLICAS))), prompt(tenant, random.nextInt(CONVERSATIONS)), START_MS);
        }
    }

    /** Requests of popular tenants, each one of {@value #CONVERSATIONS} conversations of its tenant (cached or not). */
    public RouteRequest[] requests(int count) {
        RouteRequest[] out = new RouteRequest[count];
        for (int i = 0; i < count; i++) {
            int tenant = tenant();
            long[] prompt = prompt(tenant, random.nextInt(CONVERSATIONS));
            int tokens = PROMPT_BLOCKS * BLOCK_TOKENS - random.nextInt(BLOCK_TOKENS);
            out[i] = new RouteRequest("bench-" + i, "tenant-" + tenant, MODEL, tokens, prompt, BLOCK_TOKENS, 256,
                    Set.of(), "INTERACTIVE", RouteRequest.NO_DEADLINE);
        }
        return out;
    }

    private int tenant() {
        double u = random.nextDouble();
        return (int) Math.min(TENANTS - 1, Math.floor(Math.pow(TENANTS, u)) - 1);
    }

    private int home(int tenant, int replica) {
        return (int) Math.floorMod((long) tenant * 7919 + replica * 104_729L, (long) workers);
    }

    /** A tenant's system prompt blocks, then a conversation's: chained so a block id implies its prefix. */
    private long[] prompt(int tenant, long conversation) {
        long[] hashes = new long[PROMPT_BLOCKS];
        long h = 0x5EEDL + tenant;
        for (int i = 0; i < PROMPT_BLOCKS; i++) {
            long token = i < SYSTEM_BLOCKS ? i : conversation * 31 + i;
            h = mix(h * 0x9E3779B97F4A7C15L + token);
            hashes[i] = h;
        }
        return hashes;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
