package io.kvroute.local.chaos;

import io.kvroute.local.stack.LocalKafkaBroker;
import io.kvroute.local.stack.ServiceProcess;
import io.kvroute.local.stack.ServiceProcesses;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out a {@link FaultPlan} on the child processes and the broker, on one thread so faults
 * never interleave: each fault picks a seeded random target among those currently up, strikes,
 * and schedules its own recovery (restart, SIGCONT). {@link #finish()} recovers everything still
 * down, so the run can drain.
 */
public final class FaultInjector implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FaultInjector.class);

    /** How long faults last: a killed process stays dead {@code restartDelay}; a hang and an outage last their own. */
    public record Timings(Duration restartDelay, Duration hang, Duration outage) {
    }

    private static final int NO_TARGET_RETRIES = 30;
    private static final Duration NO_TARGET_RETRY = Duration.ofSeconds(1);

    private final ServiceProcesses processes;
    private final LocalKafkaBroker broker;
    private final Timings timings;
    private final SplittableRandom random;
    private final LongSupplier clock;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "chaos-faults");
        t.setDaemon(true);
        return t;
    });
    private final List<InjectedFault> injected = new ArrayList<>();
    private final Set<ServiceProcess> downByFault = new HashSet<>();
    private final List<String> restartedAfterExit = new ArrayList<>();
    private final List<Runnable> pendingRecoveries = new ArrayList<>();

    public FaultInjector(ServiceProcesses processes, LocalKafkaBroker broker, Timings timings, long seed, LongSupplier clock) {
        this.processes = processes;
        this.broker = broker;
        this.timings = timings;
        this.random = new SplittableRandom(seed);
        this.clock = clock;
    }

    /**
     * Restarts, as a deployment's supervisor would (systemd, Kubernetes), any process that exited on
     * its own rather than by an injected fault; checked every second on the fault thread.
     */
    public void superviseProcesses() {
        thread.scheduleWithFixedDelay(() -> {
            for (ServiceProcess process : processes.all()) {
                if (!process.isRunning() && !process.isPaused() && !downByFault.contains(process)) {
                    LOG.warn("chaos: {} exited on its own; starting it again", process.name());
                    try {
                        process.start();
                        restartedAfterExit.add(process.name());
                    } catch (RuntimeException e) {
                        LOG.error("chaos: restarting {} failed: {}", process.name(), e.toString());
                    }
                }
            }
        }, 1, 1, TimeUnit.SECONDS);
    }

    /** Processes that exited on their own and were started again (names, in order). */
    public List<String> restartedAfterExit() {
        // read on the fault thread, the only one that writes the list
        try {
            return thread.submit(() -> List.copyOf(restartedAfterExit)).get(2, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading the restarted processes", e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("the fault thread did not answer: " + e, e);
        }
    }

    /** Schedules every fault of {@code plan} relative to now. */
    public void schedule(FaultPlan plan) {
        for (FaultPlan.PlannedFault fault : plan.faults()) {
            thread.schedule(() -> strike(fault.kind(), 0), fault.atMs(), TimeUnit.MILLISECONDS);
        }
    }

    /** Strikes, or when no target is up (all down from earlier faults) tries again shortly, skipping after a while. */
    private void strike(FaultKind kind, int retries) {
        try {
            boolean struck = switch (kind) {
                case KILL_WORKER -> killAndRestart(kind, pick(processes.workers()));
                case KILL_ROUTER -> killAndRestart(kind, pick(processes.routers()));
                case HANG_WORKER -> hang(pick(processes.workers()));
                case RESTART_BROKER -> restartBroker();
                case REGION_OUTAGE -> regionOutage();
            };
            if (!struck) {
                if (retries < NO_TARGET_RETRIES) {
                    thread.schedule(() -> strike(kind, retries + 1), NO_TARGET_RETRY.toMillis(), TimeUnit.MILLISECONDS);
                } else {
                    LOG.warn("chaos: no target for {} was up; skipped", kind.jsonName());
                    record(new InjectedFault(kind, null, clock.getAsLong(), 0));
                }
            }
        } catch (RuntimeException e) {
            LOG.error("injecting {} failed: {}", kind.jsonName(), e.toString());
        }
    }

    private ServiceProcess pick(List<ServiceProcess> candidates) {
        List<ServiceProcess> up = candidates.stream().filter(ServiceProcess::isRunning).toList();
        return up.isEmpty() ? null : up.get(random.nextInt(up.size()));
    }

    private boolean killAndRestart(FaultKind kind, ServiceProcess target) {
        if (target == null) {
            return false;
        }
        LOG.info("chaos: kill -9 {} (pid {})", target.name(), target.pid());
        downByFault.add(target);
        target.kill();
        int index = record(new InjectedFault(kind, target.name(), clock.getAsLong(), 0));
        recoverLater(timings.restartDelay(), () -> {
            LOG.info("chaos: starting {} again", target.name());
            downByFault.remove(target);
            target.start();
            recovered(index);
        });
        return true;
    }

    private boolean hang(ServiceProcess target) {
        if (target == null) {
            return false;
        }
        LOG.info("chaos: SIGSTOP {} (pid {}) for {} s", target.name(), target.pid(), timings.hang().toSeconds());
        target.pause();
        int index = record(new InjectedFault(FaultKind.HANG_WORKER, target.name(), clock.getAsLong(), 0));
        recoverLater(timings.hang(), () -> {
            LOG.info("chaos: SIGCONT {}", target.name());
            target.resume();
            recovered(index);
        });
        return true;
    }

    private boolean restartBroker() {
        int index = broker.brokerCount() == 1 ? 0 : random.nextInt(broker.brokerCount());
        String target = broker.brokerName(index);
        long struck = clock.getAsLong();
        long pid = broker.kill(index);
        LOG.info("chaos: killed {} (pid {}) with -9; starting it again", target, pid);
        broker.start();
        record(new InjectedFault(FaultKind.RESTART_BROKER, target, struck, clock.getAsLong()));
        return true;
    }

    private boolean regionOutage() {
        List<String> regions = processes.workersByRegion().entrySet().stream()
                .filter(e -> e.getValue().stream().allMatch(ServiceProcess::isRunning))
                .map(Map.Entry::getKey)
                .toList();
        if (regions.size() < 2) {
            // never the last healthy region: an outage must leave somewhere for new work to go
            return false;
        }
        String region = regions.get(random.nextInt(regions.size()));
        List<ServiceProcess> workers = processes.workersByRegion().get(region);
        LOG.info("chaos: region {} goes silent ({} workers SIGSTOPped) for {} s", region, workers.size(), timings.outage().toSeconds());
        workers.forEach(ServiceProcess::pause);
        int index = record(new InjectedFault(FaultKind.REGION_OUTAGE, region, clock.getAsLong(), 0));
        recoverLater(timings.outage(), () -> {
            LOG.info("chaos: region {} is back", region);
            workers.forEach(ServiceProcess::resume);
            recovered(index);
        });
        return true;
    }

    private void recoverLater(Duration after, Runnable recovery) {
        Runnable once = new Runnable() {
            private boolean done;

            @Override
            public void run() {
                if (!done) {
                    done = true;
                    pendingRecoveries.remove(this);
                    try {
                        recovery.run();
                    } catch (RuntimeException e) {
                        LOG.error("chaos: a recovery failed: {}", e.toString());
                    }
                }
            }
        };
        pendingRecoveries.add(once);
        thread.schedule(once, after.toMillis(), TimeUnit.MILLISECONDS);
    }

    private int record(InjectedFault fault) {
        injected.add(fault);
        return injected.size() - 1;
    }

    private void recovered(int index) {
        injected.set(index, injected.get(index).recovered(clock.getAsLong()));
    }

    /** Recovers every target still down, drops the faults not yet struck, and returns what was injected. */
    public List<InjectedFault> finish() {
        try {
            return thread.submit(() -> {
                List.copyOf(pendingRecoveries).forEach(Runnable::run);
                return List.copyOf(injected);
            }).get(2, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted recovering faults", e);
        } catch (Exception e) {
            throw new IllegalStateException("recovering the injected faults failed: " + e, e);
        } finally {
            thread.shutdownNow();
        }
    }

    /** What has been injected so far (a snapshot, from the fault thread). */
    public List<InjectedFault> injectedSoFar() {
        try {
            return thread.submit(() -> List.copyOf(injected)).get(2, TimeUnit.MINUTES);
        } catch (Exception e) {
            return List.of();
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
