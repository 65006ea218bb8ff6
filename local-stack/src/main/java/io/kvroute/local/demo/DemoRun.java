package io.kvroute.local.demo;

import io.kvroute.ingress.client.ClientConfig;
import io.kvroute.ingress.client.Completion;
import io.kvroute.ingress.client.KvrouteClient;
import io.kvroute.ingress.client.SubmitRequest;
import io.kvroute.local.stack.LocalStack;
import io.kvroute.local.stack.SecuredDeployment;
import io.kvroute.bench.sim.FleetSpec;
import io.kvroute.local.stack.KvrouteServices;
import io.kvroute.bench.trace.SyntheticPrompt;
import io.kvroute.bench.trace.TraceRequest;
import io.kvroute.schemas.v1.ResponseStatus;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * One demo run: starts the local stack, replays trace requests at their arrival times (scaled)
 * through the client library, shows live progress, and measures what came back.
 */
public final class DemoRun {
    /**
     * @param timeScale arrival-time compression: 2.0 replays the trace twice as fast
     * @param drainTimeout how long to wait for results after the last request is sent
     */
    /** @param secure run on a secured broker (SASL_SSL, authorizer, ACLs) with the trace's requests split over two tenants */
    public record Options(String traceName, List<TraceRequest> trace, String policy, FleetSpec fleet, double timeScale,
                          Duration drainTimeout, Path workDir, Map<String, String> settings, int routers, boolean secure) {
    }

    private final Options options;
    private final PrintStream progress;
    private Function<LocalStack, AutoCloseable> alongside = stack -> () -> { };

    public DemoRun(Options options, PrintStream progress) {
        this.options = options;
        this.progress = progress;
    }

    /** Starts something on the stack once it runs (the console), closed before the stack is. */
    public DemoRun alongside(Function<LocalStack, AutoCloseable> start) {
        this.alongside = start;
        return this;
    }

    public DemoSummary run() throws Exception {
        long startedNs = System.nanoTime();
        List<Long> pids = new ArrayList<>(List.of(ProcessHandle.current().pid()));
        AtomicLong peakRss = new AtomicLong();
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "demo-progress");
            t.setDaemon(true);
            return t;
        });
        ticker.scheduleAtFixedRate(() -> peakRss.accumulateAndGet(ProcessMemory.totalRssBytes(pids), Math::max), 0, 500, TimeUnit.MILLISECONDS);
        progress.println("kvroute demo: starting the local stack (KRaft broker, schema registry, router, "
                + options.fleet().totalGpus() + " simulated GPUs in " + options.fleet().regions().size() + " regions)...");
        LocalStack local = new LocalStack(options.workDir(), options.fleet(), options.policy(), options.settings(), options.routers());
        try (LocalStack stack = (options.secure() ? local.secured() : local).start()) {
            pids.addAll(stack.childPids());
            AutoCloseable extra = alongside.apply(stack);
            try (extra) {
                return replayOn(stack, peakRss, ticker, startedNs);
            }
        } finally {
            ticker.shutdownNow();
        }
    }

    private DemoSummary replayOn(LocalStack stack, AtomicLong peakRss, ScheduledExecutorService ticker, long startedNs)
            throws Exception {
        Map<String, String> common = Map.of(
                ClientConfig.BOOTSTRAP_SERVERS, stack.bootstrapServers(),
                ClientConfig.SCHEMA_REGISTRY_URL, stack.registryUrl(),
                ClientConfig.TOPIC_PREFIX, stack.topics().prefix(),
                ClientConfig.CLIENT_ID, "kvroute-demo");
        List<KvrouteClient> clients = new ArrayList<>();
        Map<String, Object> security = null;
        try (DecisionTally tally = new DecisionTally(stack.operatorClientSettings(), stack.registryUrl(), stack.topics())) {
            if (stack.security() == null) {
                Map<String, String> settings = new HashMap<>(common);
                settings.put(ClientConfig.TENANT, "demo");
                clients.add(KvrouteClient.create(ClientConfig.of(settings)));
            } else {
                // one client per tenant, each its own principal: the trace's requests alternate between them
                List<String> files = new ArrayList<>();
                for (String tenant : SecuredDeployment.TENANTS) {
                    Map<String, String> settings = new HashMap<>(common);
                    settings.putAll(stack.security().clientSettings(tenant));
                    clients.add(KvrouteClient.create(ClientConfig.of(settings)));
                    files.add(stack.security().writeClientProperties(options.workDir().resolve("clients"), tenant, common).toString());
                }
                security = new LinkedHashMap<>();
                security.put("protocol", "SASL_SSL");
                security.put("sasl_mechanism", "SCRAM-SHA-512");
                security.put("authorizer", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
                security.put("tenant_topics", "per-tenant");
                security.put("tenants", SecuredDeployment.TENANTS.size());
                security.put("client_properties", files);
                progress.println("kvroute demo: secured cluster (SASL_SSL, SCRAM-SHA-512, ACLs per role); tenants "
                        + SecuredDeployment.TENANTS + ", client properties in " + options.workDir().resolve("clients"));
            }
            DemoSummary summary = replay(clients, tally, ticker, peakRss, startedNs);
            long followed = stack.services().routers().stream().mapToLong(r -> r.peers().followed()).sum();
            return summary.withRouters(options.routers(), followed).withSecurity(security);
        } finally {
            clients.forEach(KvrouteClient::close);
        }
    }

    private DemoSummary replay(List<KvrouteClient> clients, DecisionTally tally, ScheduledExecutorService ticker,
                               AtomicLong peakRss, long startedNs) throws InterruptedException {
        List<TraceRequest> trace = options.trace();
        int n = trace.size();
        long[] submittedNs = new long[n];
        long[] firstChunkNs = new long[n];
        long[] doneNs = new long[n];
        List<CompletableFuture<Completion>> futures = new ArrayList<>(n);
        long replayStartNs = System.nanoTime();
        ticker.scheduleAtFixedRate(() -> printProgress(futures, n, tally, replayStartNs), 1, 1, TimeUnit.SECONDS);

        for (int i = 0; i < n; i++) {
            TraceRequest request = trace.get(i);
            long dueNs = replayStartNs + (long) (request.arrivalMs() / options.timeScale() * 1_000_000);
            long waitNs = dueNs - System.nanoTime();
            if (waitNs > 0) {
                TimeUnit.NANOSECONDS.sleep(waitNs);
            }
            int index = i;
            SubmitRequest submit = SubmitRequest.builder()
                    .customId("trace-" + i)
                    .model(KvrouteServices.MODEL)
                    .prompt(SyntheticPrompt.forRequest(request))
                    .maxTokens(request.outputTokens())
                    .build();
            submittedNs[i] = System.nanoTime();
            CompletableFuture<Completion> future = clients.get(i % clients.size()).submit(submit, chunk -> {
                if (firstChunkNs[index] == 0) {
                    firstChunkNs[index] = System.nanoTime();
                }
            });
            futures.add(future.whenComplete((c, e) -> doneNs[index] = System.nanoTime()));
        }
        progress.printf("kvroute demo: all %d requests sent; waiting up to %d s for results%n", n, options.drainTimeout().toSeconds());
        try {
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(options.drainTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            progress.println("kvroute demo: stopped waiting: " + e.getClass().getSimpleName());
        }
        printProgress(futures, n, tally, replayStartNs);
        return summarize(futures, submittedNs, firstChunkNs, doneNs, peakRss.get(), startedNs);
    }

    private void printProgress(List<CompletableFuture<Completion>> futures, int total, DecisionTally tally, long replayStartNs) {
        int sent = futures.size();
        long done = futures.stream().filter(CompletableFuture::isDone).count();
        StringBuilder regions = new StringBuilder();
        tally.dispatchedByRegion().forEach((region, count) -> regions.append(' ').append(region).append('=').append(count));
        progress.printf("[%4ds] sent %d/%d  done %d  in flight %d  | dispatched per region:%s%n",
                (System.nanoTime() - replayStartNs) / 1_000_000_000, sent, total, done, sent - done, regions);
    }

    private DemoSummary summarize(List<CompletableFuture<Completion>> futures, long[] submittedNs, long[] firstChunkNs,
                                  long[] doneNs, long peakRss, long startedNs) {
        int completed = 0, failed = 0, rejected = 0, expired = 0, cancelled = 0, lost = 0;
        long promptTokens = 0, cachedTokens = 0;
        List<Long> ttft = new ArrayList<>();
        List<Long> engineTtft = new ArrayList<>();
        List<Long> e2e = new ArrayList<>();
        Map<String, Integer> regions = new TreeMap<>();
        for (int i = 0; i < futures.size(); i++) {
            CompletableFuture<Completion> future = futures.get(i);
            if (!future.isDone() || future.isCompletedExceptionally()) {
                lost++;
                continue;
            }
            Completion c = future.join();
            ResponseStatus status = c.status();
            switch (status) {
                case COMPLETED -> completed++;
                case FAILED -> failed++;
                case REJECTED -> rejected++;
                case EXPIRED -> expired++;
                case CANCELLED -> cancelled++;
            }
            if (status != ResponseStatus.COMPLETED) {
                continue;
            }
            if (c.region() != null) {
                regions.merge(c.region(), 1, Integer::sum);
            }
            if (firstChunkNs[i] != 0) {
                ttft.add((firstChunkNs[i] - submittedNs[i]) / 1_000_000);
            }
            if (c.ttftMs() != null) {
                engineTtft.add(c.ttftMs());
            }
            e2e.add((doneNs[i] - submittedNs[i]) / 1_000_000);
            promptTokens += c.usage().promptTokens();
            cachedTokens += c.usage().cachedTokens();
        }
        return new DemoSummary(options.traceName(), options.policy(), futures.size(), completed, failed, rejected, expired, cancelled, lost,
                percentiles(ttft), percentiles(engineTtft), percentiles(e2e),
                promptTokens == 0 ? 0 : (double) cachedTokens / promptTokens, regions, peakRss,
                (System.nanoTime() - startedNs) / 1e9, 1, 0, null);
    }

    private static Percentiles percentiles(List<Long> values) {
        return new Percentiles(values.stream().mapToLong(Long::longValue).toArray());
    }
}
