package io.kvroute.schemas.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvroute.schemas.serde.SerdeConfig;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import javax.net.ssl.SSLException;
import org.apache.avro.Schema;

/**
 * Client for the Confluent Schema Registry REST API (v7), as served by Confluent's registry and
 * by Apicurio's {@code /apis/ccompat/v7}. Results are cached per (subject, schema) and per id.
 * An id the registry does not know is remembered as unknown for {@code unknownIdTtl} (bounded to
 * {@value #MAX_UNKNOWN_IDS} ids), so records naming it cost no registry call each; after that it
 * is asked again, as the id may have been registered since. A 401 or 403 is a
 * {@link SchemaRegistryAuthException}: a configuration error, not an outage. Credentials and TLS
 * trust come from a {@link RegistrySecurity}: its {@code Authorization} header goes with every
 * request, and its {@code SSLContext} replaces the JVM's default trust.
 */
public final class HttpSchemaRegistryClient implements SchemaRegistryClient {
    private static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** How long an unknown schema id is remembered as unknown. */
    public static final long DEFAULT_UNKNOWN_ID_TTL_MS = 60_000;
    /** Unknown ids remembered at most: records can name any of 2^32 ids. */
    public static final int MAX_UNKNOWN_IDS = 10_000;

    private final URI baseUri;
    private final HttpClient http;
    private final Duration timeout;
    private final Map<String, Integer> idsBySubjectAndSchema = new ConcurrentHashMap<>();
    private final Map<Integer, Schema> schemasById = new ConcurrentHashMap<>();
    private final Map<Integer, Long> unknownIdsUntil = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, Long> eldest) {
            return size() > MAX_UNKNOWN_IDS;
        }
    };
    private final long unknownIdTtlMs;
    private final LongSupplier clock;
    private final RegistrySecurity security;

    public HttpSchemaRegistryClient(String baseUrl) {
        this(baseUrl, Duration.ofSeconds(10));
    }

    public HttpSchemaRegistryClient(String baseUrl, Duration timeout) {
        this(baseUrl, timeout, Duration.ofMillis(DEFAULT_UNKNOWN_ID_TTL_MS), System::currentTimeMillis);
    }

    public HttpSchemaRegistryClient(String baseUrl, Duration timeout, Duration unknownIdTtl, LongSupplier clock) {
        this(baseUrl, timeout, unknownIdTtl, clock, RegistrySecurity.NONE);
    }

    public HttpSchemaRegistryClient(String baseUrl, RegistrySecurity security) {
        this(baseUrl, Duration.ofSeconds(10), Duration.ofMillis(DEFAULT_UNKNOWN_ID_TTL_MS), System::currentTimeMillis, security);
    }

    public HttpSchemaRegistryClient(String baseUrl, Duration timeout, Duration unknownIdTtl, LongSupplier clock, RegistrySecurity security) {
        this.security = Objects.requireNonNull(security, "security");
        this.unknownIdTtlMs = unknownIdTtl.toMillis();
        this.clock = Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(baseUrl, "baseUrl");
        String trimmed = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        try {
            this.baseUri = URI.create(trimmed + "/");
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("schema.registry.url is not a URL: '" + baseUrl + "'", e);
        }
        this.timeout = timeout;
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(timeout);
        security.sslContext().ifPresent(builder::sslContext);
        this.http = builder.build();
    }

    @Override
    public int register(String subject, Schema schema) {
        String cacheKey = subject + '\n' + schema.toString();
        Integer cached = idsBySubjectAndSchema.get(cacheKey);
        if (cached != null) {
            return cached;
        }
        JsonNode reply;
        try {
            reply = post("subjects/" + encode(subject) + "/versions", schemaBody(schema), subject);
        } catch (SchemaRegistryException e) {
            // Two clients registering the same new subject at once: some registries (Apicurio)
            // answer the second with 409 "already exists"; the schema is there, so look it up.
            if (!e.getMessage().contains("HTTP 409")) {
                throw e;
            }
            try {
                return lookup(subject, schema);
            } catch (SchemaRegistryException notThere) {
                throw e;
            }
        }
        int id = reply.path("id").asInt(-1);
        if (id < 0) {
            throw new SchemaRegistryException("registry answered registration of subject '" + subject + "' without an id: " + reply);
        }
        idsBySubjectAndSchema.put(cacheKey, id);
        schemasById.putIfAbsent(id, schema);
        return id;
    }

    @Override
    public int lookup(String subject, Schema schema) {
        String cacheKey = subject + '\n' + schema.toString();
        Integer cached = idsBySubjectAndSchema.get(cacheKey);
        if (cached != null) {
            return cached;
        }
        JsonNode reply = post("subjects/" + encode(subject), schemaBody(schema), subject);
        int id = reply.path("id").asInt(-1);
        if (id < 0) {
            throw new SchemaRegistryException("schema not registered under subject '" + subject + "'");
        }
        idsBySubjectAndSchema.put(cacheKey, id);
        return id;
    }

    @Override
    public Schema getById(int id) {
        Schema cached = schemasById.get(id);
        if (cached != null) {
            return cached;
        }
        if (knownUnknown(id)) {
            throw new UnknownSchemaIdException(id);
        }
        HttpRequest request = request("schemas/ids/" + id).header("Accept", CONTENT_TYPE).GET().build();
        HttpResponse<String> response = send(request);
        if (response.statusCode() == 404) {
            synchronized (unknownIdsUntil) {
                unknownIdsUntil.put(id, clock.getAsLong() + unknownIdTtlMs);
            }
            throw new UnknownSchemaIdException(id);
        }
        JsonNode body = checkOk(response, "fetching schema id " + id);
        Schema schema = new Schema.Parser().parse(body.path("schema").asText());
        schemasById.put(id, schema);
        return schema;
    }

    private boolean knownUnknown(int id) {
        synchronized (unknownIdsUntil) {
            Long until = unknownIdsUntil.get(id);
            if (until == null) {
                return false;
            }
            if (clock.getAsLong() < until) {
                return true;
            }
            unknownIdsUntil.remove(id);
            return false;
        }
    }

    private JsonNode post(String path, String body, String subject) {
        HttpRequest request = request(path)
                .header("Content-Type", CONTENT_TYPE)
                .header("Accept", CONTENT_TYPE)
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        return checkOk(send(request), "subject '" + subject + "'");
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(baseUri.resolve(path)).timeout(timeout);
        security.authorization().ifPresent(value -> builder.header("Authorization", value));
        return builder;
    }

    private HttpResponse<String> send(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (SSLException e) {
            throw new SchemaRegistryException("schema registry at " + baseUri + " failed the TLS handshake (" + e.getMessage()
                    + "); check " + SerdeConfig.SSL_TRUSTSTORE_LOCATION + " and the registry's certificate", e);
        } catch (IOException e) {
            throw new SchemaRegistryException("schema registry at " + baseUri + " is not reachable: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SchemaRegistryException("interrupted while calling the schema registry", e);
        }
    }

    private JsonNode checkOk(HttpResponse<String> response, String what) {
        if (response.statusCode() == 401 || response.statusCode() == 403) {
            throw new SchemaRegistryAuthException(baseUri.toString(), response.statusCode(), what);
        }
        if (response.statusCode() / 100 != 2) {
            throw new SchemaRegistryException("schema registry refused " + what + ": HTTP "
                    + response.statusCode() + " " + response.body());
        }
        try {
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new SchemaRegistryException("schema registry answered " + what + " with unreadable JSON", e);
        }
    }

    private static String schemaBody(Schema schema) {
        return JSON.createObjectNode().put("schema", schema.toString()).toString();
    }

    private static String encode(String subject) {
        return URLEncoder.encode(subject, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "HttpSchemaRegistryClient[" + baseUri + ", " + security + "]";
    }
}
