package io.kvroute.local.security;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.Signature;
import java.security.interfaces.RSAPublicKey;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A minimal OAuth 2.0 / OIDC issuer on 127.0.0.1 for tests, the two endpoints Kafka's OAUTHBEARER support talks to:
 * {@code GET /jwks} publishes its RSA signing key (a JSON Web Key Set), and {@code POST /token} answers the
 * {@code client_credentials} grant of a registered client (HTTP Basic client authentication) with an RS256 JWT whose
 * {@code sub} is the client id, {@code aud} the configured audience, {@code iss} this issuer's URL. Every issuer makes
 * its own key under the same key id, so another issuer {@link #claimingIssuer claiming} this one's URL makes tokens
 * that differ from this one's only in the key they are signed with.
 */
final class LocalOidcIssuer implements AutoCloseable {
    static final String KEY_ID = "kvroute-test-signing-key";
    private static final Duration TOKEN_LIFETIME = Duration.ofHours(1);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "local-oidc-issuer");
        t.setDaemon(true);
        return t;
    });
    private final KeyPair key;
    private final String audience;
    private final Clock clock;
    /** Client id to the SHA-256 of its secret: the secret itself is not kept. */
    private final Map<String, byte[]> clients = new ConcurrentHashMap<>();
    private volatile String claimedIssuer;

    LocalOidcIssuer(String audience, Clock clock) throws IOException, GeneralSecurityException {
        this.audience = audience;
        this.clock = clock;
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        this.key = generator.generateKeyPair();
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/jwks", this::jwks);
        server.createContext("/token", this::token);
        server.setExecutor(executor);
        server.start();
    }

    /** Registers a confidential client: it may get tokens with {@code sub} = {@code clientId}. */
    LocalOidcIssuer client(String clientId, String secret) {
        clients.put(clientId, sha256(secret));
        return this;
    }

    /** Makes tokens whose {@code iss} is {@code issuer} instead of this issuer's own URL (a forger's). */
    LocalOidcIssuer claimingIssuer(String issuer) {
        this.claimedIssuer = issuer;
        return this;
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    String jwksUrl() {
        return url() + "/jwks";
    }

    String tokenUrl() {
        return url() + "/token";
    }

    private void jwks(HttpExchange exchange) throws IOException {
        RSAPublicKey publicKey = (RSAPublicKey) key.getPublic();
        Map<String, Object> jwk = new LinkedHashMap<>();
        jwk.put("kty", "RSA");
        jwk.put("use", "sig");
        jwk.put("alg", "RS256");
        jwk.put("kid", KEY_ID);
        jwk.put("n", base64Url(unsigned(publicKey.getModulus())));
        jwk.put("e", base64Url(unsigned(publicKey.getPublicExponent())));
        respond(exchange, 200, Map.of("keys", List.of(jwk)));
    }

    private void token(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        if (!"POST".equals(exchange.getRequestMethod()) || !form(body).getOrDefault("grant_type", "").equals("client_credentials")) {
            respond(exchange, 400, Map.of("error", "unsupported_grant_type"));
            return;
        }
        String clientId = authenticatedClient(exchange.getRequestHeaders().getFirst("Authorization"));
        if (clientId == null) {
            respond(exchange, 401, Map.of("error", "invalid_client"));
            return;
        }
        long now = clock.instant().getEpochSecond();
        Map<String, Object> claims = new LinkedHashMap<>();
        claims.put("iss", claimedIssuer != null ? claimedIssuer : url());
        claims.put("sub", clientId);
        claims.put("aud", audience);
        claims.put("iat", now);
        claims.put("exp", now + TOKEN_LIFETIME.toSeconds());
        claims.put("scope", "kafka");
        try {
            respond(exchange, 200, Map.of("access_token", sign(claims), "token_type", "Bearer", "expires_in", TOKEN_LIFETIME.toSeconds()));
        } catch (GeneralSecurityException e) {
            respond(exchange, 500, Map.of("error", "server_error"));
        }
    }

    /** The client id of an {@code Authorization: Basic} header naming a registered client and its secret, else null. */
    private String authenticatedClient(String authorization) {
        if (authorization == null || !authorization.startsWith("Basic ")) {
            return null;
        }
        String pair;
        try {
            pair = new String(Base64.getDecoder().decode(authorization.substring("Basic ".length()).trim()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
        int colon = pair.indexOf(':');
        if (colon < 0) {
            return null;
        }
        String clientId = URLDecoder.decode(pair.substring(0, colon), StandardCharsets.UTF_8);
        byte[] expected = clients.get(clientId);
        byte[] given = sha256(URLDecoder.decode(pair.substring(colon + 1), StandardCharsets.UTF_8));
        return expected != null && MessageDigest.isEqual(expected, given) ? clientId : null;
    }

    private String sign(Map<String, Object> claims) throws IOException, GeneralSecurityException {
        String header = base64Url(JSON.writeValueAsBytes(Map.of("alg", "RS256", "typ", "JWT", "kid", KEY_ID)));
        String payload = base64Url(JSON.writeValueAsBytes(claims));
        Signature rs256 = Signature.getInstance("SHA256withRSA");
        rs256.initSign(key.getPrivate());
        rs256.update((header + "." + payload).getBytes(StandardCharsets.US_ASCII));
        return header + "." + payload + "." + base64Url(rs256.sign());
    }

    private static Map<String, String> form(String body) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String pair : body.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                fields.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return fields;
    }

    private static void respond(HttpExchange exchange, int status, Object json) throws IOException {
        byte[] bytes = JSON.writeValueAsBytes(json);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static byte[] unsigned(BigInteger value) {
        byte[] bytes = value.toByteArray();
        return bytes.length > 1 && bytes[0] == 0 ? Arrays.copyOfRange(bytes, 1, bytes.length) : bytes;
    }

    private static String base64Url(byte[] bytes) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    @Override
    public String toString() {
        return "LocalOidcIssuer[" + url() + ", clients=" + clients.keySet() + "]";
    }
}
