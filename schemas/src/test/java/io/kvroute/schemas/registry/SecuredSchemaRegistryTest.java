package io.kvroute.schemas.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.kvroute.schemas.serde.SerdeConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;
import org.apache.avro.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The registry client against registries on 127.0.0.1 that require Basic auth, a bearer token,
 * TLS with a self-signed certificate, and a client certificate: it gets in with the right settings,
 * and without them it is refused with an error naming the registry (auth: a configuration error).
 */
class SecuredSchemaRegistryTest {
    private static final String STORE_PASSWORD = "store-secret-1";
    private static final String TRUST_PASSWORD = "trust-secret-2";
    private static final String SCHEMA_REPLY = "{\"schema\":\"\\\"string\\\"\"}";

    @TempDir
    static Path stores;
    private static Path serverKeystore;
    private static Path truststore;

    private HttpServer server;

    @BeforeAll
    static void makeCertificates() throws Exception {
        serverKeystore = stores.resolve("registry.p12");
        truststore = stores.resolve("trust.p12");
        Path certificate = stores.resolve("registry.cer");
        keytool("-genkeypair", "-alias", "registry", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=127.0.0.1",
                "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore", serverKeystore.toString(),
                "-storepass", STORE_PASSWORD, "-keypass", STORE_PASSWORD);
        keytool("-exportcert", "-alias", "registry", "-keystore", serverKeystore.toString(), "-storepass", STORE_PASSWORD,
                "-file", certificate.toString());
        keytool("-importcert", "-noprompt", "-alias", "registry", "-file", certificate.toString(), "-storetype", "PKCS12",
                "-keystore", truststore.toString(), "-storepass", TRUST_PASSWORD);
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(System.getProperty("java.home") + "/bin/keytool");
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("keytool finished").isTrue();
        assertThat(process.exitValue()).as("keytool %s: %s", args[0], output).isZero();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    /** Answers schema id 1 when {@code authorized} accepts the request's Authorization header, else 401. */
    private static HttpHandler registryRequiring(java.util.function.Predicate<String> authorized) {
        return exchange -> {
            String header = exchange.getRequestHeaders().getFirst("Authorization");
            if (header == null || !authorized.test(header)) {
                reply(exchange, 401, "{\"error_code\":401,\"message\":\"Unauthorized\"}");
            } else {
                reply(exchange, 200, SCHEMA_REPLY);
            }
        };
    }

    private static void reply(HttpExchange exchange, int status, String body) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            in.readAllBytes();
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    private String httpRegistry(HttpHandler handler) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        server.createContext("/", handler);
        server.start();
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private String httpsRegistry(boolean needClientCertificate) throws Exception {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(serverKeystore)) {
            keys.load(in, STORE_PASSWORD.toCharArray());
        }
        KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyManagers.init(keys, STORE_PASSWORD.toCharArray());
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(truststore)) {
            trusted.load(in, TRUST_PASSWORD.toCharArray());
        }
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
        HttpsServer https = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        https.setHttpsConfigurator(new HttpsConfigurator(context) {
            @Override
            public void configure(HttpsParameters params) {
                SSLParameters parameters = context.getDefaultSSLParameters();
                parameters.setNeedClientAuth(needClientCertificate);
                params.setSSLParameters(parameters);
            }
        });
        https.createContext("/", exchange -> reply(exchange, 200, SCHEMA_REPLY));
        https.start();
        server = https;
        return "https://127.0.0.1:" + https.getAddress().getPort();
    }

    private static SchemaRegistryClient client(String url, String... keyValues) {
        Map<String, Object> config = new HashMap<>();
        config.put(SerdeConfig.SCHEMA_REGISTRY_URL, url);
        for (int i = 0; i < keyValues.length; i += 2) {
            config.put(keyValues[i], keyValues[i + 1]);
        }
        return SchemaRegistries.forConfig(config);
    }

    private static String basic(String userInfo) {
        return "Basic " + Base64.getEncoder().encodeToString(userInfo.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void shouldSendBasicAuthCredentialsAndBeRefusedWithoutOrWithWrongOnes() throws IOException {
        String url = httpRegistry(registryRequiring(basic("kvroute:s3cret-pw")::equals));

        assertThat(client(url, SerdeConfig.BASIC_AUTH_CREDENTIALS_SOURCE, "USER_INFO", SerdeConfig.BASIC_AUTH_USER_INFO, "kvroute:s3cret-pw")
                .getById(1)).isEqualTo(Schema.create(Schema.Type.STRING));
        assertThat(client(url, "schema.registry.basic.auth.credentials.source", "USER_INFO",
                "schema.registry.basic.auth.user.info", "kvroute:s3cret-pw").getById(1))
                .as("the schema.registry.-prefixed names are read too").isEqualTo(Schema.create(Schema.Type.STRING));

        assertThatThrownBy(() -> client(url).getById(1))
                .isInstanceOf(SchemaRegistryAuthException.class).hasMessageContaining("HTTP 401").hasMessageContaining(url);
        assertThatThrownBy(() -> client(url, SerdeConfig.BASIC_AUTH_CREDENTIALS_SOURCE, "USER_INFO",
                SerdeConfig.BASIC_AUTH_USER_INFO, "kvroute:wrong-pw").getById(1))
                .isInstanceOf(SchemaRegistryAuthException.class)
                .hasMessageNotContaining("wrong-pw")
                .satisfies(e -> assertThat(SchemaRegistryException.isConfigurationError(e)).isTrue());
    }

    @Test
    void shouldSendAStaticBearerTokenAndBeRefusedWithoutOrWithAWrongOne() throws IOException {
        String url = httpRegistry(registryRequiring("Bearer tok-123.abc"::equals));

        assertThat(client(url, SerdeConfig.BEARER_AUTH_CREDENTIALS_SOURCE, "STATIC_TOKEN", SerdeConfig.BEARER_AUTH_TOKEN, "tok-123.abc")
                .getById(1)).isEqualTo(Schema.create(Schema.Type.STRING));

        assertThatThrownBy(() -> client(url).getById(1)).isInstanceOf(SchemaRegistryAuthException.class);
        assertThatThrownBy(() -> client(url, SerdeConfig.BEARER_AUTH_CREDENTIALS_SOURCE, "STATIC_TOKEN",
                SerdeConfig.BEARER_AUTH_TOKEN, "tok-999").getById(1))
                .isInstanceOf(SchemaRegistryAuthException.class).hasMessageNotContaining("tok-999");
    }

    @Test
    void shouldSendCredentialsWithRegistrationsToo() throws IOException {
        String url = httpRegistry(registryRequiring("Bearer tok-123.abc"::equals));
        // the handler answers every authorized call with the schema reply, which has no id: the call got past auth
        assertThatThrownBy(() -> client(url, SerdeConfig.BEARER_AUTH_CREDENTIALS_SOURCE, "STATIC_TOKEN",
                SerdeConfig.BEARER_AUTH_TOKEN, "tok-123.abc").register("kvroute.requests-value", Schema.create(Schema.Type.STRING)))
                .isNotInstanceOf(SchemaRegistryAuthException.class).hasMessageContaining("without an id");
    }

    @Test
    void shouldReachAnHttpsRegistryWithItsCertificateInTheTruststoreAndBeRefusedWithout() throws Exception {
        String url = httpsRegistry(false);

        assertThat(client(url, SerdeConfig.SSL_TRUSTSTORE_LOCATION, truststore.toString(),
                SerdeConfig.SSL_TRUSTSTORE_PASSWORD, TRUST_PASSWORD, SerdeConfig.SSL_TRUSTSTORE_TYPE, "PKCS12").getById(1))
                .isEqualTo(Schema.create(Schema.Type.STRING));

        long start = System.nanoTime();
        assertThatThrownBy(() -> client(url).getById(1))
                .isInstanceOf(SchemaRegistryException.class)
                .hasMessageContaining(url)
                .hasMessageContaining("TLS handshake")
                .hasMessageContaining(SerdeConfig.SSL_TRUSTSTORE_LOCATION);
        assertThat(System.nanoTime() - start).as("refused at once, not after a timeout").isLessThan(TimeUnit.SECONDS.toNanos(5));
    }

    @Test
    void shouldPresentTheKeystoreToARegistryThatRequiresAClientCertificate() throws Exception {
        String url = httpsRegistry(true);
        String[] trust = {SerdeConfig.SSL_TRUSTSTORE_LOCATION, truststore.toString(), SerdeConfig.SSL_TRUSTSTORE_PASSWORD, TRUST_PASSWORD};

        assertThat(client(url, trust[0], trust[1], trust[2], trust[3],
                SerdeConfig.SSL_KEYSTORE_LOCATION, serverKeystore.toString(), SerdeConfig.SSL_KEYSTORE_PASSWORD, STORE_PASSWORD,
                SerdeConfig.SSL_KEYSTORE_TYPE, "PKCS12").getById(1)).isEqualTo(Schema.create(Schema.Type.STRING));

        assertThatThrownBy(() -> client(url, trust).getById(1))
                .isInstanceOf(SchemaRegistryException.class).hasMessageContaining(url);
    }

    @Test
    void shouldNameTheKeyAndNeverTheSecretWhenASettingIsWrong() throws IOException {
        String url = "https://127.0.0.1:1";
        Path missing = stores.resolve("nowhere.p12");

        assertThatThrownBy(() -> client(url, SerdeConfig.SSL_TRUSTSTORE_LOCATION, missing.toString()))
                .isInstanceOf(SchemaRegistryConfigException.class)
                .hasMessageContaining(SerdeConfig.SSL_TRUSTSTORE_LOCATION).hasMessageContaining("not a readable file");
        assertThatThrownBy(() -> client(url, SerdeConfig.SSL_TRUSTSTORE_LOCATION, truststore.toString(),
                SerdeConfig.SSL_TRUSTSTORE_PASSWORD, "not-the-pw-77", SerdeConfig.SSL_TRUSTSTORE_TYPE, "PKCS12"))
                .isInstanceOf(SchemaRegistryConfigException.class)
                .hasMessageContaining(SerdeConfig.SSL_TRUSTSTORE_PASSWORD).hasMessageNotContaining("not-the-pw-77");
        assertThatThrownBy(() -> client(url, SerdeConfig.SSL_KEYSTORE_LOCATION, serverKeystore.toString(),
                SerdeConfig.SSL_KEYSTORE_PASSWORD, STORE_PASSWORD, SerdeConfig.SSL_KEY_PASSWORD, "bad-key-pw-55"))
                .isInstanceOf(SchemaRegistryConfigException.class)
                .hasMessageContaining(SerdeConfig.SSL_KEY_PASSWORD).hasMessageNotContaining("bad-key-pw-55");
        assertThatThrownBy(() -> client(url, SerdeConfig.SSL_TRUSTSTORE_LOCATION, truststore.toString(),
                SerdeConfig.SSL_TRUSTSTORE_TYPE, "NOPE"))
                .isInstanceOf(SchemaRegistryConfigException.class).hasMessageContaining(SerdeConfig.SSL_TRUSTSTORE_TYPE);

        assertThatThrownBy(() -> client(url, SerdeConfig.BASIC_AUTH_CREDENTIALS_SOURCE, "USER_INFO",
                SerdeConfig.BASIC_AUTH_USER_INFO, "justapassword42"))
                .isInstanceOf(SchemaRegistryConfigException.class)
                .hasMessageContaining(SerdeConfig.BASIC_AUTH_USER_INFO).hasMessageContaining("user:password")
                .hasMessageNotContaining("justapassword42");
        assertThatThrownBy(() -> client(url, SerdeConfig.BASIC_AUTH_USER_INFO, "kvroute:pw-31"))
                .isInstanceOf(SchemaRegistryConfigException.class)
                .hasMessageContaining(SerdeConfig.BASIC_AUTH_CREDENTIALS_SOURCE).hasMessageNotContaining("pw-31");
        assertThatThrownBy(() -> client(url, SerdeConfig.BASIC_AUTH_CREDENTIALS_SOURCE, "URL"))
                .isInstanceOf(SchemaRegistryConfigException.class).hasMessageContaining("must be USER_INFO");
        assertThatThrownBy(() -> client(url, SerdeConfig.BASIC_AUTH_CREDENTIALS_SOURCE, "USER_INFO", SerdeConfig.BASIC_AUTH_USER_INFO, "a:pw-1",
                SerdeConfig.BEARER_AUTH_CREDENTIALS_SOURCE, "STATIC_TOKEN", SerdeConfig.BEARER_AUTH_TOKEN, "tok-22"))
                .isInstanceOf(SchemaRegistryConfigException.class)
                .hasMessageContaining(SerdeConfig.BASIC_AUTH_USER_INFO).hasMessageContaining(SerdeConfig.BEARER_AUTH_TOKEN)
                .hasMessageNotContaining("pw-1").hasMessageNotContaining("tok-22");
        assertThatThrownBy(() -> client(url, SerdeConfig.BEARER_AUTH_CREDENTIALS_SOURCE, "STATIC_TOKEN"))
                .isInstanceOf(SchemaRegistryConfigException.class).hasMessageContaining(SerdeConfig.BEARER_AUTH_TOKEN + " = ''");
        assertThatThrownBy(() -> client("https://kvroute:pw-in-url@127.0.0.1:1"))
                .isInstanceOf(SchemaRegistryConfigException.class)
                .hasMessageContaining(SerdeConfig.SCHEMA_REGISTRY_URL).hasMessageNotContaining("pw-in-url");
    }

    @Test
    void shouldShowWhichCredentialIsUsedButNotTheSecret() {
        SchemaRegistryClient client = client("http://127.0.0.1:1", SerdeConfig.BASIC_AUTH_CREDENTIALS_SOURCE, "USER_INFO",
                SerdeConfig.BASIC_AUTH_USER_INFO, "kvroute:pw-shown-never", SerdeConfig.SSL_TRUSTSTORE_LOCATION, truststore.toString(),
                SerdeConfig.SSL_TRUSTSTORE_PASSWORD, TRUST_PASSWORD);

        assertThat(client.toString()).contains(SerdeConfig.BASIC_AUTH_USER_INFO).contains(SerdeConfig.SSL_TRUSTSTORE_LOCATION)
                .doesNotContain("pw-shown-never").doesNotContain(TRUST_PASSWORD);
    }
}
