package io.kvroute.local.stack;

import io.kvroute.platform.process.ChildJvm;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One kvroute process (a router instance or a worker) run in its own JVM from this process's
 * classpath, so it can be killed, hung and restarted like a real deployment's. A restart runs
 * the same command again: same worker id, same router application id and state directory.
 */
public final class ServiceProcess implements AutoCloseable {
    /** Environment variable with extra JVM options for every child process (profiling, GC logs). */
    public static final String CHILD_JAVA_OPTS = "KVROUTE_CHILD_JAVA_OPTS";

    private final String name;
    private final String mainClass;
    private final List<String> jvmArgs;
    private final List<String> args;
    private final Path dir;
    private ChildJvm jvm;
    private boolean paused;

    /**
     * @param logConfig a Log4j 2 configuration for the process's log file, or null for the classpath's
     */
    public ServiceProcess(String name, String mainClass, String heap, Map<String, String> settings, Path dir, Path logConfig) {
        this.name = name;
        this.mainClass = mainClass;
        List<String> args = new ArrayList<>(List.of("-Xmx" + heap, "-XX:+UseSerialGC",
                // C1 only: these processes live minutes, and C2 compiles would take CPU from the machine's real work
                "-XX:TieredStopAtLevel=1"));
        if (logConfig != null) {
            args.add("-Dlog4j2.configurationFile=" + logConfig.toAbsolutePath());
        }
        // e.g. a flight recording of each process: KVROUTE_CHILD_JAVA_OPTS="-XX:StartFlightRecording=filename=/tmp/kvroute-%p.jfr"
        String extra = System.getenv(CHILD_JAVA_OPTS);
        if (extra != null && !extra.isBlank()) {
            args.addAll(List.of(extra.trim().split("\\s+")));
        }
        this.jvmArgs = List.copyOf(args);
        List<String> keyValues = new ArrayList<>();
        settings.forEach((key, value) -> keyValues.add(key + "=" + value));
        this.args = List.copyOf(keyValues);
        this.dir = dir;
    }

    public synchronized ServiceProcess start() {
        if (jvm != null && jvm.isAlive()) {
            throw new IllegalStateException(name + " is already running (pid " + jvm.pid() + ")");
        }
        jvm = ChildJvm.start(name, jvmArgs, ChildJvm.currentClasspath(), mainClass, args, dir, dir.resolve(name + ".log"));
        paused = false;
        return this;
    }

    /** kill -9: no shutdown hook runs, no group is left, open transactions stay open until fenced or timed out. */
    public synchronized void kill() {
        if (jvm != null) {
            jvm.kill();
        }
        paused = false;
    }

    /** SIGSTOP: the process stays alive and connected but stops heartbeating and working. */
    public synchronized void pause() {
        jvm.pause();
        paused = true;
    }

    public synchronized void resume() {
        jvm.resume();
        paused = false;
    }

    public synchronized boolean isRunning() {
        return jvm != null && jvm.isAlive() && !paused;
    }

    public synchronized boolean isPaused() {
        return paused;
    }

    public String name() {
        return name;
    }

    public synchronized long pid() {
        return jvm == null ? -1 : jvm.pid();
    }

    public Path log() {
        return dir.resolve(name + ".log");
    }

    @Override
    public synchronized void close() {
        if (jvm != null) {
            if (paused) {
                jvm.resume();
                paused = false;
            }
            jvm.close();
        }
    }
}
