package io.kvroute.local.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The TLS material of a secured local cluster, made once in its directory with the JDK's {@code keytool}: a key store
 * holding the broker's key and a self-signed certificate for 127.0.0.1 and localhost (subject alternative names, so
 * clients verify the host as they do in production), and a trust store holding that certificate for clients. The
 * stores have a random password of their own, kept beside them (readable by this user only) so a restart on the same
 * directory opens them again; it is not the administrator's, since every client is given the trust store's. Store
 * passwords reach keytool through its environment, never its command line.
 */
final class BrokerTls {
    private static final String PASSWORD_VARIABLE = "KVROUTE_LOCAL_TLS_PASSWORD";
    private static final long KEYTOOL_TIMEOUT_S = 60;

    private final Path dir;
    private String password;

    BrokerTls(Path dir) {
        this.dir = dir;
    }

    /** Creates {@code file} readable and writable by this user only, then writes {@code content}: never readable by others. */
    static void writeSecret(Path file, String content) throws IOException {
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, content);
    }

    Path keyStore() {
        return dir.resolve("broker.p12");
    }

    Path trustStore() {
        return dir.resolve("truststore.p12");
    }

    /** The broker's listener settings; makes the stores first if they are not there. */
    Map<String, String> brokerSettings() {
        ensureStores();
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("ssl.keystore.location", keyStore().toString());
        settings.put("ssl.keystore.type", "PKCS12");
        settings.put("ssl.keystore.password", password);
        settings.put("ssl.key.password", password);
        // the broker is a client of itself between listeners: it trusts its own certificate too
        settings.put("ssl.truststore.location", trustStore().toString());
        settings.put("ssl.truststore.type", "PKCS12");
        settings.put("ssl.truststore.password", password);
        return settings;
    }

    /**
     * A key store holding a key and a self-signed certificate for {@code user} (CN={@code user}), its certificate added to
     * the trust store the broker checks clients with: a client presenting it over mutual TLS is {@code User:user}. Call
     * before the broker starts (it reads its trust store then).
     */
    synchronized Path clientKeyStore(String user) {
        if (!user.matches("[A-Za-z0-9_-]+")) {
            throw new IllegalArgumentException("a certificate user is letters, digits, '_' or '-', was '" + user + "'");
        }
        ensureStores();
        Path store = dir.resolve("client-" + user + ".p12");
        if (Files.exists(store)) {
            return store;
        }
        try {
            Path certificate = dir.resolve("client-" + user + ".cer");
            keytool("-genkeypair", "-alias", user, "-keyalg", "RSA", "-keysize", "2048", "-validity", "3650",
                    "-dname", "CN=" + user + ", O=kvroute local stack", "-keystore", store.toString(), "-storetype", "PKCS12",
                    "-storepass:env", PASSWORD_VARIABLE, "-keypass:env", PASSWORD_VARIABLE);
            Files.setPosixFilePermissions(store, PosixFilePermissions.fromString("rw-------"));
            keytool("-exportcert", "-alias", user, "-keystore", store.toString(), "-storepass:env", PASSWORD_VARIABLE,
                    "-file", certificate.toString());
            keytool("-importcert", "-noprompt", "-alias", "client-" + user, "-file", certificate.toString(),
                    "-keystore", trustStore().toString(), "-storetype", "PKCS12", "-storepass:env", PASSWORD_VARIABLE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make a client certificate for " + user + " in " + dir, e);
        }
        return store;
    }

    /** The settings of a client authenticating as {@code user} with its certificate (mutual TLS). */
    Map<String, Object> clientCertificate(String user) {
        Path store = clientKeyStore(user);
        Map<String, Object> settings = new LinkedHashMap<>(clientTrust());
        settings.put("security.protocol", "SSL");
        settings.put("ssl.keystore.location", store.toString());
        settings.put("ssl.keystore.type", "PKCS12");
        settings.put("ssl.keystore.password", password);
        settings.put("ssl.key.password", password);
        return settings;
    }

    /** A client's trust settings (host names verified, as by default). */
    Map<String, Object> clientTrust() {
        ensureStores();
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("ssl.truststore.location", trustStore().toString());
        settings.put("ssl.truststore.type", "PKCS12");
        settings.put("ssl.truststore.password", password);
        return settings;
    }

    private synchronized void ensureStores() {
        Path passwordFile = dir.resolve("stores.password");
        try {
            if (Files.exists(keyStore()) && Files.exists(trustStore()) && Files.exists(passwordFile)) {
                password = Files.readString(passwordFile).strip();
                return;
            }
            Files.createDirectories(dir);
            password = UUID.randomUUID().toString();
            writeSecret(passwordFile, password);
            Files.deleteIfExists(keyStore());
            Files.deleteIfExists(trustStore());
            Path certificate = dir.resolve("broker.cer");
            keytool("-genkeypair", "-alias", "broker", "-keyalg", "RSA", "-keysize", "2048", "-validity", "3650",
                    "-dname", "CN=localhost, O=kvroute local stack", "-ext", "SAN=ip:127.0.0.1,dns:localhost",
                    "-keystore", keyStore().toString(), "-storetype", "PKCS12",
                    "-storepass:env", PASSWORD_VARIABLE, "-keypass:env", PASSWORD_VARIABLE);
            keytool("-exportcert", "-alias", "broker", "-keystore", keyStore().toString(), "-storepass:env", PASSWORD_VARIABLE,
                    "-file", certificate.toString());
            keytool("-importcert", "-noprompt", "-alias", "kvroute-local-broker", "-file", certificate.toString(),
                    "-keystore", trustStore().toString(), "-storetype", "PKCS12", "-storepass:env", PASSWORD_VARIABLE);
            for (Path file : List.of(keyStore(), trustStore())) {
                Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the local cluster's TLS stores in " + dir, e);
        }
    }

    private void keytool(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("keytool.log").toFile());
        builder.environment().put(PASSWORD_VARIABLE, password);
        Process process = builder.start();
        try {
            if (!process.waitFor(KEYTOOL_TIMEOUT_S, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException("keytool " + args[0] + " did not finish within " + KEYTOOL_TIMEOUT_S + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IOException("interrupted running keytool " + args[0], e);
        }
        if (process.exitValue() != 0) {
            throw new IOException("keytool " + args[0] + " failed (exit " + process.exitValue() + "); see " + dir.resolve("keytool.log"));
        }
    }
}
