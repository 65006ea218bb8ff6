/**
 * JMH benchmarks of the router's decision cost (the "Decision cost" part of the routing-quality
 * issue), compiled with the module: the annotation processor writes {@code META-INF/BenchmarkList}
 * into {@code target/classes} during the normal build.
 *
 * <pre>
 * cd /work/main
 * mvn -B -o -q -pl bench install -DskipTests
 * mvn -B -o -q -pl bench dependency:build-classpath -Dmdep.outputFile=target/jmh.classpath
 * CP="$(cat bench/target/jmh.classpath):bench/target/classes"
 * # p50/p99 of one decision, kvroute and dynamo-kv, 100 / 1,000 / 10,000 workers, 1M indexed blocks,
 * # and of a fixed computation as the machine's noise control (~2 min on 2 cores)
 * java -cp "$CP" org.openjdk.jmh.Main DecisionCostBenchmark FixedWorkBenchmark
 * # the candidate sample's effect, side by side in one run
 * java -cp "$CP" org.openjdk.jmh.Main DecisionCostBenchmark -p workers=1000,10000 -p policy=kvroute -p sample=32,64
 * # heap taken by 1M (block, worker) pairs in each prefix index over 1,000 workers
 * java -Xmx1g -cp "$CP" io.kvroute.bench.jmh.IndexHeap 1000 1000000
 * </pre>
 *
 * {@link io.kvroute.bench.jmh.DecisionWorkload} builds the fleet, the filled indices and the requests.
 */
package io.kvroute.bench.jmh;
