package io.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.zookeeper.ZooDefs.Perms;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Settings are logged; secrets are not. And TLS settings reach ZooKeeper per client, complete. */
class SecretMaskingTest {
    private static final String DIGEST_PW = "digest-pw-q81";
    private static final String KS_PW = "keystore-pw-z72";
    private static final String TS_PW = "truststore-pw-k09";

    @TempDir
    Path dir;

    private TlsSettings tls() throws Exception {
        Path ks = Files.createFile(dir.resolve("k.p12"));
        Path ts = Files.createFile(dir.resolve("t.p12"));
        return TlsSettings.mutual(ks, KS_PW, ts, TS_PW);
    }

    @Test
    void toStringOfCredentialsTlsSettingsAndCoordSettingsNeverShowsASecret() throws Exception {
        Credentials credentials = Credentials.digest("alice", DIGEST_PW);
        TlsSettings tls = tls();
        CoordSettings settings = CoordSettings.builder().connectString("127.0.0.1:2181").credentials(credentials).tls(tls)
                .aclPolicy(AclPolicy.builder().rule("/a", AclEntry.digest("alice", DIGEST_PW, Perms.ALL)).build()).build();
        for (Object o : new Object[] {credentials, tls, settings, settings.aclPolicy()}) {
            String s = o.toString();
            for (String secret : new String[] {DIGEST_PW, KS_PW, TS_PW}) {
                assertFalse(s.contains(secret), o.getClass().getSimpleName() + " shows a secret: " + s);
            }
        }
        assertTrue(credentials.toString().contains("digest:alice"), "the identity is still shown: " + credentials);
        assertTrue(tls.toString().contains("k.p12") && tls.toString().contains("t.p12"), "the store paths are still shown: " + tls);
    }

    @Test
    void tlsSettingsGoIntoThisClientsZkClientConfigAndOverrideJvmWideOnes() throws Exception {
        ClientX509Util x509 = new ClientX509Util();
        String globalKeyStore = x509.getSslKeystoreLocationProperty();
        String previous = System.getProperty(globalKeyStore);
        System.setProperty(globalKeyStore, "/somewhere/else/server.p12");
        try {
            TlsSettings trustOnly = TlsSettings.trustOnly(Files.createFile(dir.resolve("t.p12")), TS_PW);
            ZKClientConfig config = CuratorFactory.clientConfig(CoordSettings.builder().connectString("127.0.0.1:2181").tls(trustOnly).build());
            assertEquals("true", config.getProperty(ZKClientConfig.SECURE_CLIENT));
            assertEquals("org.apache.zookeeper.ClientCnxnSocketNetty", config.getProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET));
            assertEquals("", config.getProperty(globalKeyStore), "a trust-only client presents no certificate, whatever the JVM says");
            assertEquals(trustOnly.trustStore().toString(), config.getProperty(x509.getSslTruststoreLocationProperty()));
            assertEquals("true", config.getProperty(x509.getSslHostnameVerificationEnabledProperty()));

            ZKClientConfig plain = CuratorFactory.clientConfig(CoordSettings.builder().connectString("127.0.0.1:2181").build());
            assertEquals("false", plain.getProperty(ZKClientConfig.SECURE_CLIENT), "no TLS settings means plaintext");
        } finally {
            if (previous == null) {
                System.clearProperty(globalKeyStore);
            } else {
                System.setProperty(globalKeyStore, previous);
            }
            x509.close();
        }
    }

    @Test
    void tlsSettingsRefuseStoresThatDoNotExist() {
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> TlsSettings.trustOnly(dir.resolve("missing.p12"), TS_PW));
        assertTrue(e.getMessage().contains("missing.p12"), e.getMessage());
    }
}
