package io.kvroute.local.stack;

import io.kvroute.bench.sim.FleetSpec;
import io.kvroute.router.RouterApp;
import io.kvroute.router.config.RouterConfig;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.worker.WorkerApp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.common.GroupState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kvroute's router instances and workers, each in its own JVM (see {@link ServiceProcess}), on a
 * running broker and registry; the settings are those of {@link KvrouteServices}, so the processes
 * behave as the in-process demo's do.
 */
public final class ServiceProcesses implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ServiceProcesses.class);

    private final KvrouteServices services;
    private final FleetSpec fleet;
    private final KvrouteTopics topics;
    private final String bootstrapServers;
    private final List<ServiceProcess> routers = new ArrayList<>();
    private final Map<String, List<ServiceProcess>> workersByRegion = new LinkedHashMap<>();

    public ServiceProcesses(KvrouteServices services, FleetSpec fleet, KvrouteTopics topics, String bootstrapServers,
                            int routerInstances, Path dir) {
        this.services = services;
        this.fleet = fleet;
        this.topics = topics;
        this.bootstrapServers = bootstrapServers;
        Path processDir = createDirectories(dir.resolve("processes"));
        Path logConfig = writeLogConfig(processDir);
        for (int i = 0; i < routerInstances; i++) {
            Map<String, String> settings = new LinkedHashMap<>(services.routerSettings().asMap());
            settings.put(RouterConfig.STATE_DIR, dir.resolve("router-state-" + i).toAbsolutePath().toString());
            routers.add(new ServiceProcess("router-" + i, RouterApp.class.getName(), "384m", settings, processDir, logConfig));
        }
        for (FleetSpec.Region region : fleet.regions()) {
            List<ServiceProcess> workers = new ArrayList<>();
            for (int slot = 0; slot < region.gpus(); slot++) {
                Map<String, String> settings = services.workerSettings(region, slot).asMap();
                workers.add(new ServiceProcess("worker-" + region.name() + "-" + slot, WorkerApp.class.getName(), "192m",
                        settings, processDir, logConfig));
            }
            workersByRegion.put(region.name(), workers);
        }
    }

    /** Starts every process and waits until the router's and every region's consumer groups have all their members. */
    public ServiceProcesses start(Duration timeout) {
        try {
            routers.forEach(ServiceProcess::start);
            workersByRegion.values().forEach(workers -> workers.forEach(ServiceProcess::start));
            awaitGroups(timeout);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        LOG.info("{} router instance(s) and {} workers running as child processes", routers.size(), workers().size());
        return this;
    }

    private void awaitGroups(Duration timeout) {
        Map<String, Integer> expected = new LinkedHashMap<>();
        expected.put(services.routerSettings().string(RouterConfig.APPLICATION_ID), routers.size());
        fleet.regions().forEach(region -> expected.put(topics.prefix() + ".worker." + region.name(), region.gpus()));
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers))) {
            while (true) {
                String missing = missingMembers(admin, expected);
                if (missing.isEmpty()) {
                    return;
                }
                for (ServiceProcess process : all()) {
                    if (!process.isRunning()) {
                        throw new IllegalStateException(process.name() + " exited during start-up; see " + process.log());
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("kvroute processes not ready within " + timeout + ": " + missing);
                }
                TimeUnit.MILLISECONDS.sleep(250);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for the kvroute processes", e);
        }
    }

    private static String missingMembers(Admin admin, Map<String, Integer> expected) throws InterruptedException {
        try {
            Map<String, ConsumerGroupDescription> groups = admin.describeConsumerGroups(expected.keySet()).all()
                    .get(10, TimeUnit.SECONDS);
            StringBuilder missing = new StringBuilder();
            expected.forEach((group, members) -> {
                ConsumerGroupDescription description = groups.get(group);
                int have = description == null ? 0 : description.members().size();
                if (description == null || description.groupState() != GroupState.STABLE || have < members) {
                    missing.append(group).append(" has ").append(have).append('/').append(members).append(" members; ");
                }
            });
            return missing.toString();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return "cannot describe groups yet (" + e.getClass().getSimpleName() + ")";
        }
    }

    public List<ServiceProcess> routers() {
        return routers;
    }

    public Map<String, List<ServiceProcess>> workersByRegion() {
        return workersByRegion;
    }

    public List<ServiceProcess> workers() {
        return workersByRegion.values().stream().flatMap(Collection::stream).toList();
    }

    public List<ServiceProcess> all() {
        List<ServiceProcess> all = new ArrayList<>(routers);
        all.addAll(workers());
        return all;
    }

    public List<Long> pids() {
        return all().stream().map(ServiceProcess::pid).filter(pid -> pid > 0).toList();
    }

    @Override
    public void close() {
        workers().forEach(w -> KvrouteServices.closeQuietly(w, w.name()));
        routers.forEach(r -> KvrouteServices.closeQuietly(r, r.name()));
    }

    /** kvroute's own INFO lines (partitions taken and lost, re-placements, retries) in each process's log, for the record of a run. */
    public static Path writeLogConfig(Path dir) {
        Path file = dir.resolve("service-log4j2.properties");
        try {
            Files.writeString(file, String.join("\n",
                    "rootLogger.level = WARN",
                    "rootLogger.appenderRef.out.ref = OUT",
                    "logger.kvroute.name = io.kvroute",
                    "logger.kvroute.level = INFO",
                    "appender.out.type = Console",
                    "appender.out.name = OUT",
                    "appender.out.layout.type = PatternLayout",
                    "appender.out.layout.pattern = %d{HH:mm:ss.SSS} %-5level %c{1} - %msg%n", ""));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
        return file;
    }

    private static Path createDirectories(Path dir) {
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
    }
}
