package io.kvroute.router.topology;

import io.kvroute.router.admission.RequestValidator;
import io.kvroute.router.config.RouterConfig;
import io.kvroute.router.errors.GlobalDeadLetters;
import io.kvroute.router.metrics.RouterMetrics;
import io.kvroute.router.routing.FleetView;
import io.kvroute.router.routing.PeerPlacements;
import io.kvroute.router.routing.Router;
import io.kvroute.router.routing.TieBreak;
import io.kvroute.router.topology.internal.AdmissionProcessor;
import io.kvroute.router.topology.internal.AdmissionRecords;
import io.kvroute.router.topology.internal.CancellationUpdater;
import io.kvroute.router.topology.internal.DispatchRouting;
import io.kvroute.router.topology.internal.FairShares;
import io.kvroute.router.topology.internal.KvEventUpdater;
import io.kvroute.router.topology.internal.Parking;
import io.kvroute.router.topology.internal.Replacement;
import io.kvroute.router.topology.internal.RequestIntake;
import io.kvroute.router.topology.internal.ResponseTopics;
import io.kvroute.router.topology.internal.ResultTracker;
import io.kvroute.router.topology.internal.RequestReader;
import io.kvroute.router.topology.internal.CommitPacing;
import io.kvroute.router.topology.internal.RoutingProcessor;
import io.kvroute.router.topology.internal.TelemetryLimits;
import io.kvroute.router.topology.internal.TelemetryUpdater;
import io.kvroute.router.topology.internal.TenantCancelForwarder;
import io.kvroute.router.topology.internal.TopologyNames;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.topics.TenantTopics;
import io.kvroute.schemas.v1.CancelRequest;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.KvCacheEvent;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.RoutingDecision;
import io.kvroute.schemas.v1.WorkerTelemetry;
import java.time.Duration;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyConfig;
import org.apache.kafka.streams.state.Stores;

/**
 * The router's Kafka Streams topology, a pure function of its configuration: it does no I/O.
 *
 * <pre>
 * requests (bytes) ──► intake: decode + dedup + validate ──► router: candidates → policy ──► dispatch.&lt;region&gt; (chosen partition)
 *                          │  undecodable ──► dlq                 │  no candidate ──► parked store, retried on wall clock
 *                          └─ rejected ──► responses + decisions   └─────────────► decisions (every request)
 *                          └─ duplicate id ──► responses (REJECTED, duplicate = true) + decisions
 *                             accepted ids: windowed store {@value TopologyNames#ACCEPTED_IDS_STORE} (changelogged)
 * worker-telemetry (compacted) ──► global store {@value TopologyNames#TELEMETRY_STORE} (decoded and checked on the way in;
 *                                   refused records ──► dlq, outside the transaction, see {@link GlobalDeadLetters})
 *                                   and the router's in-memory fleet view (per (model, region) worker lists)
 * cancellations (compacted) ──► global store {@value TopologyNames#CANCELLATIONS_STORE} (cancelled request ids): the
 *               router answers CANCELLED, without dispatching, a request whose id is there when it arrives or
 *               while it is parked
 * responses ──► result tracker: a terminal removes its request from {@value TopologyNames#IN_FLIGHT_STORE}, where the
 *               router keeps every dispatched, unfinished request; those of a region silent past the re-placement
 *               patience are dispatched again elsewhere (next attempt), with a marker on cancellations voiding the old one;
 *               a worker's hand-back of a rate-limited run goes to the router, which places it again elsewhere
 * kv-events ──► global processor ──► the router's in-memory KV-event index (last sequence per worker in
 *               global store {@value TopologyNames#KV_EVENTS_STORE})
 * </pre>
 *
 * Intake narrows each valid request to the regions both it and its tenant allow
 * ({@code router.tenant.regions}); the narrowed request is what every later decision routes.
 * Parked requests are served by priority, then fairly between tenants (virtual token counters).
 * A worker reporting {@code rateLimitedUntilMs} gets no work until then, and a region marked
 * {@code shared} in {@code router.region.profiles} is cooled whole.
 *
 * <p>When tenants have quotas ({@code router.tenant.quotas} or {@code router.quota.default}), an
 * admission step sits between intake and routing, on two topics the router owns
 * ({@link RouterConfig#admissionTopic()}, {@link RouterConfig#admittedTopic()}):
 * <pre>
 * intake ──► &lt;app&gt;-admission-by-tenant (key tenant) ──► admission: quotas ──► &lt;app&gt;-admitted-requests (key request id) ──► router
 *                 ▲                                   │ over quota ──► wait (store {@value TopologyNames#QUOTA_WAITING_STORE})
 *                 │                                   │               or REJECTED / EXPIRED ──► responses + decisions
 *   router + result tracker: usage of finished requests (settlements, key tenant)
 * </pre>
 * Keyed by tenant, each tenant's quota is kept by exactly one task, whichever of the router's
 * instances runs it, so limits hold as instances scale out.
 *
 * Every processor, sink and store has a fixed name (see {@link TopologyNames}). One routing state
 * (policy, pending-load ledger, prefix index) is made per build and shared by all tasks of the
 * instance that runs the topology: build a new topology for each {@code KafkaStreams} instance.
 */
public final class RouterTopology {
    public static final String PARKED_STORE = TopologyNames.PARKED_STORE;
    public static final String ACCEPTED_IDS_STORE = TopologyNames.ACCEPTED_IDS_STORE;
    public static final String TELEMETRY_STORE = TopologyNames.TELEMETRY_STORE;
    public static final String KV_EVENTS_STORE = TopologyNames.KV_EVENTS_STORE;
    public static final String CANCELLATIONS_STORE = TopologyNames.CANCELLATIONS_STORE;

    private RouterTopology() {
    }

    public static Topology build(RouterConfig config, Serdes serdes) {
        return build(config, serdes, RouterMetrics.noop());
    }

    public static Topology build(RouterConfig config, Serdes serdes, RouterMetrics metrics) {
        return build(config, serdes, metrics, GlobalDeadLetters.none());
    }

    /** As {@link #build(RouterConfig, Serdes, RouterMetrics)}; refused telemetry and KV events go to {@code deadLetters}. */
    public static Topology build(RouterConfig config, Serdes serdes, RouterMetrics metrics, GlobalDeadLetters deadLetters) {
        return build(config, serdes, metrics, deadLetters, PeerPlacements.none(), "");
    }

    /**
     * As {@link #build(RouterConfig, Serdes, RouterMetrics, GlobalDeadLetters)}, for router instance
     * {@code routerInstance}, which follows the other instances' placements queued in {@code peers}.
     */
    public static Topology build(RouterConfig config, Serdes serdes, RouterMetrics metrics, GlobalDeadLetters deadLetters,
                                 PeerPlacements peers, String routerInstance) {
        return build(config, serdes, metrics, deadLetters, peers, routerInstance, RequestReader.NONE);
    }

    /**
     * As above; with a {@code requests} reader other than {@link RequestReader#NONE}, the in-flight store keeps each
     * request without its prompt, read back from the request record if it must be placed again.
     */
    public static Topology build(RouterConfig config, Serdes serdes, RouterMetrics metrics, GlobalDeadLetters deadLetters,
                                 PeerPlacements peers, String routerInstance, RequestReader requests) {
        KvrouteTopics topics = config.topics();
        Serde<InferenceRequest> requestSerde = serdes.valueSerde(InferenceRequest.class);
        Serde<WorkerTelemetry> telemetrySerde = serdes.valueSerde(WorkerTelemetry.class);
        Serde<DispatchedRequest> dispatchSerde = serdes.valueSerde(DispatchedRequest.class);
        Serde<RoutingDecision> decisionSerde = serdes.valueSerde(RoutingDecision.class);
        Serde<ResponseEvent> responseSerde = serdes.valueSerde(ResponseEvent.class);
        Serde<KvCacheEvent> kvEventSerde = serdes.valueSerde(KvCacheEvent.class);
        Serde<CancelRequest> cancelSerde = serdes.valueSerde(CancelRequest.class);
        String kvEventsTopic = topics.kvEvents().name();
        String requestsTopic = topics.requests().name();
        String telemetryTopic = topics.workerTelemetry().name();
        RequestValidator validator = new RequestValidator(config.modelContextTokens(), config.maxPromptTokens(), config.regions(),
                config.requestBounds());

        Router router = Router.create(config.policy(), config.routing(), config.regionCatalog(), TieBreak.forInstance(routerInstance));
        metrics.watchEngineSpeeds(router.state().engineSpeeds());
        FleetView fleet = new FleetView();
        metrics.watchWorkers(fleet::size);
        metrics.watchRegions(config.regions(), fleet);
        FairShares fairShares = new FairShares();
        Topology topology = new Topology(new TopologyConfig(new StreamsConfig(config.streamsProperties())));
        topology.addGlobalStore(
                Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(TopologyNames.TELEMETRY_STORE),
                        org.apache.kafka.common.serialization.Serdes.String(),
                        org.apache.kafka.common.serialization.Serdes.ByteArray()).withLoggingDisabled(),
                TopologyNames.TELEMETRY_SOURCE,
                new StringDeserializer(), new ByteArrayDeserializer(),
                telemetryTopic,
                TopologyNames.TELEMETRY_UPDATER,
                () -> new TelemetryUpdater(telemetryTopic, telemetrySerde.deserializer(), metrics, fleet, deadLetters,
                        config.regionCatalog(), router.state().cooldowns(), TelemetryLimits.of(config)));
        topology.addGlobalStore(
                Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(TopologyNames.KV_EVENTS_STORE),
                        org.apache.kafka.common.serialization.Serdes.String(),
                        org.apache.kafka.common.serialization.Serdes.Long()).withLoggingDisabled(),
                TopologyNames.KV_EVENTS_SOURCE,
                new StringDeserializer(), new ByteArrayDeserializer(),
                kvEventsTopic,
                TopologyNames.KV_EVENTS_UPDATER,
                () -> new KvEventUpdater(kvEventsTopic, kvEventSerde.deserializer(), router.state().kvEventIndex(), metrics,
                        deadLetters));
        topology.addGlobalStore(
                Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(TopologyNames.CANCELLATIONS_STORE),
                        org.apache.kafka.common.serialization.Serdes.String(),
                        org.apache.kafka.common.serialization.Serdes.ByteArray()).withLoggingDisabled(),
                TopologyNames.CANCELLATIONS_SOURCE,
                new StringDeserializer(), new ByteArrayDeserializer(),
                topics.cancellations().name(),
                TopologyNames.CANCELLATIONS_UPDATER,
                () -> new CancellationUpdater(topics.cancellations().name(), cancelSerde.deserializer()));

        boolean perTenant = config.tenantTopics() == TenantTopics.PER_TENANT;
        if (perTenant) {
            // every tenant's requests topic, those created later too (found at the consumer's next metadata refresh)
            topology.addSource(TopologyNames.REQUESTS_SOURCE, new ByteArrayDeserializer(), new ByteArrayDeserializer(),
                    topics.tenantTopics("requests"));
        } else {
            topology.addSource(TopologyNames.REQUESTS_SOURCE, new ByteArrayDeserializer(), new ByteArrayDeserializer(), requestsTopic);
        }
        boolean admission = config.quotasEnabled();
        topology.addProcessor(TopologyNames.INTAKE,
                () -> new RequestIntake(requestsTopic, requestSerde.deserializer(), validator, config.policy(), metrics,
                        config.dedupRetentionMs(), config.residency(),
                        admission ? TopologyNames.ADMISSION_REQUEST_SINK : TopologyNames.ROUTER, perTenant ? topics : null),
                TopologyNames.REQUESTS_SOURCE);
        topology.addStateStore(
                Stores.windowStoreBuilder(Stores.persistentWindowStore(TopologyNames.ACCEPTED_IDS_STORE,
                                Duration.ofMillis(config.dedupRetentionMs()), Duration.ofMillis(1), false),
                        org.apache.kafka.common.serialization.Serdes.String(),
                        org.apache.kafka.common.serialization.Serdes.Long()),
                TopologyNames.INTAKE);
        if (admission) {
            addAdmission(topology, config, serdes, metrics);
        }
        // the result tracker comes first: it passes workers' hand-backs of rate-limited runs to the router
        if (perTenant) {
            topology.addSource(TopologyNames.RESPONSES_SOURCE, new StringDeserializer(), new ByteArrayDeserializer(),
                    topics.tenantTopics("responses"));
        } else {
            topology.addSource(TopologyNames.RESPONSES_SOURCE, new StringDeserializer(), new ByteArrayDeserializer(),
                    topics.responses().name());
        }
        topology.addProcessor(TopologyNames.RESULT_TRACKER,
                () -> new ResultTracker(topics.responses().name(), responseSerde.deserializer(), fairShares, admission,
                        router.state().outputLengths(), router.state().engineSpeeds(), fleet::get,
                        (tenant, model, region, prompt, cached, completion) -> metrics.used(tenant, model, region, prompt, cached,
                                completion, config.regionCatalog().costPerMillionTokens(region))),
                TopologyNames.RESPONSES_SOURCE);
        // one for all routing tasks: each stream thread commits its tasks together, so they share its ask clock
        CommitPacing commitPacing = config.commitIntervalBacklogMs() > config.commitIntervalMs()
                ? new CommitPacing(config.commitIntervalMs(), config.commitBacklogAfterMs()) : CommitPacing.NONE;
        topology.addProcessor(TopologyNames.ROUTER,
                () -> new RoutingProcessor(router, telemetryTopic, telemetrySerde.deserializer(),
                        new Parking(config.parkedRetryMs(), config.parkedMaxMs(), config.parkedMaxCount()),
                        Replacement.of(config.replacePatienceMs(), config.dedupRetentionMs()), metrics, fleet,
                        fairShares, admission, peers, routerInstance, requests)
                        .pacingCommits(commitPacing),
                admission ? TopologyNames.ADMITTED_SOURCE : TopologyNames.INTAKE, TopologyNames.RESULT_TRACKER);
        topology.addStateStore(
                Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(TopologyNames.IN_FLIGHT_STORE),
                        org.apache.kafka.common.serialization.Serdes.String(), dispatchSerde),
                TopologyNames.ROUTER, TopologyNames.RESULT_TRACKER);
        topology.addStateStore(
                Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(TopologyNames.PARKED_STORE),
                        org.apache.kafka.common.serialization.Serdes.String(), requestSerde),
                TopologyNames.ROUTER);

        topology.addSink(TopologyNames.DLQ_SINK, topics.deadLetters().name(),
                new ByteArraySerializer(), new ByteArraySerializer(), TopologyNames.INTAKE);
        topology.addSink(TopologyNames.RESPONSES_SINK, ResponseTopics.extractor(topics, config.tenantTopics()),
                new StringSerializer(), Serdes.underSubjectOf(topics.responses().name(), responseSerde.serializer()), TopologyNames.INTAKE,
                TopologyNames.ROUTER);
        topology.addSink(TopologyNames.DECISIONS_SINK, topics.decisions().name(),
                new StringSerializer(), decisionSerde.serializer(), TopologyNames.INTAKE, TopologyNames.ROUTER);
        topology.addSink(TopologyNames.CANCELLATIONS_SINK, topics.cancellations().name(),
                new StringSerializer(), cancelSerde.serializer(), TopologyNames.ROUTER);
        topology.addSink(TopologyNames.DISPATCH_SINK, DispatchRouting.topicOf(topics),
                new StringSerializer(), DispatchRouting.serializer(dispatchSerde.serializer()), DispatchRouting.partitioner(),
                TopologyNames.ROUTER);
        if (perTenant) {
            // tenants' cancels go on to the cancellations topic the router and workers follow, which only the router writes
            topology.addSource(TopologyNames.TENANT_CANCELLATIONS_SOURCE, new StringDeserializer(), new ByteArrayDeserializer(),
                    topics.tenantTopics("cancellations"));
            topology.addProcessor(TopologyNames.TENANT_CANCEL_FORWARDER,
                    () -> new TenantCancelForwarder(topics, cancelSerde.deserializer(), TopologyNames.TENANT_CANCELLATIONS_SINK),
                    TopologyNames.TENANT_CANCELLATIONS_SOURCE);
            topology.addSink(TopologyNames.TENANT_CANCELLATIONS_SINK, topics.cancellations().name(),
                    new StringSerializer(), cancelSerde.serializer(), TopologyNames.TENANT_CANCEL_FORWARDER);
        }
        if (admission) {
            topology.addSink(TopologyNames.ADMISSION_SETTLE_SINK, config.admissionTopic(), new StringSerializer(),
                    admissionRecords(config, serdes), TopologyNames.ROUTER, TopologyNames.RESULT_TRACKER);
        }
        return topology;
    }

    /**
     * The admission step: valid requests re-keyed by tenant onto the router's admission topic, so
     * that one task owns each tenant's quota whichever instance runs it; admitted ones re-keyed by
     * request id onto the admitted topic, which routing reads instead of intake's output. Both
     * topics are the router's own, encoded with the requests topic's schema subject.
     */
    private static void addAdmission(Topology topology, RouterConfig config, Serdes serdes, RouterMetrics metrics) {
        String requestsTopic = config.topics().requests().name();
        Serde<InferenceRequest> requestSerde = serdes.valueSerde(InferenceRequest.class);
        AdmissionRecords admissionRecords = admissionRecords(config, serdes);
        topology.addSink(TopologyNames.ADMISSION_REQUEST_SINK, config.admissionTopic(), new StringSerializer(), admissionRecords,
                TopologyNames.INTAKE);
        topology.addSource(TopologyNames.ADMISSION_SOURCE, new StringDeserializer(), admissionRecords, config.admissionTopic());
        topology.addProcessor(TopologyNames.ADMISSION,
                () -> new AdmissionProcessor(config.tenantQuotas(), config.defaultQuota(), config.policy(), metrics,
                        config.parkedRetryMs(), config.parkedMaxMs()),
                TopologyNames.ADMISSION_SOURCE);
        topology.addStateStore(
                Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(TopologyNames.QUOTA_WAITING_STORE),
                        org.apache.kafka.common.serialization.Serdes.String(), requestSerde),
                TopologyNames.ADMISSION);
        for (String store : new String[] {TopologyNames.QUOTA_LEVELS_STORE, TopologyNames.QUOTA_RESERVATIONS_STORE}) {
            topology.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(store),
                    org.apache.kafka.common.serialization.Serdes.String(), org.apache.kafka.common.serialization.Serdes.String()),
                    TopologyNames.ADMISSION);
        }
        Deserializer<InferenceRequest> requestDeserializer = requestSerde.deserializer();
        Serializer<InferenceRequest> underRequestsSubject = Serdes.underSubjectOf(requestsTopic, requestSerde.serializer());
        topology.addSink(TopologyNames.ADMITTED_SINK, config.admittedTopic(), new StringSerializer(), underRequestsSubject,
                TopologyNames.ADMISSION);
        // sinks of its own: sharing routing's would join admission (keyed by tenant) and routing (keyed by
        // request id) into one sub-topology, whose source topics Streams would then require co-partitioned
        topology.addSink(TopologyNames.ADMISSION_RESPONSES_SINK, ResponseTopics.extractor(config.topics(), config.tenantTopics()),
                new StringSerializer(), Serdes.underSubjectOf(config.topics().responses().name(), serdes.valueSerde(ResponseEvent.class).serializer()),
                TopologyNames.ADMISSION);
        topology.addSink(TopologyNames.ADMISSION_DECISIONS_SINK, config.topics().decisions().name(),
                new StringSerializer(), serdes.valueSerde(RoutingDecision.class).serializer(), TopologyNames.ADMISSION);
        topology.addSource(TopologyNames.ADMITTED_SOURCE, new StringDeserializer(),
                (topic, bytes) -> requestDeserializer.deserialize(requestsTopic, bytes), config.admittedTopic());
    }

    private static AdmissionRecords admissionRecords(RouterConfig config, Serdes serdes) {
        Serde<InferenceRequest> requestSerde = serdes.valueSerde(InferenceRequest.class);
        return new AdmissionRecords(config.topics().requests().name(), requestSerde.serializer(), requestSerde.deserializer());
    }
}
