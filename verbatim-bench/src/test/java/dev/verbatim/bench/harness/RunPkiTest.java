package dev.verbatim.bench.harness;

import dev.verbatim.transport.ThrowawayPki;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The run's throwaway CA: the key stores the TLS children load are protected by one PBKDF2 iteration (each
 * costs a child that has just started ~1 s of CPU at the JDK's 10,000), still open with the CA's password,
 * and the JDK's properties are as they were after it. No timing.
 */
class RunPkiTest {

    /** One DER element: its tag and contents. */
    private record Der(int tag, byte[] content) {
        List<Der> children() {
            List<Der> out = new ArrayList<>();
            ByteArrayInputStream in = new ByteArrayInputStream(content);
            while (in.available() > 0) {
                out.add(read(in));
            }
            return out;
        }

        static Der read(InputStream in) {
            try {
                int tag = in.read();
                int len = in.read();
                if (len >= 0x80) {
                    int n = len & 0x7f;
                    len = 0;
                    for (int i = 0; i < n; i++) {
                        len = (len << 8) | in.read();
                    }
                }
                return new Der(tag, in.readNBytes(len));
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** The MAC's iteration count of PKCS#12 file {@code p12}: PFX {version, authSafe, macData {mac, salt, iterations DEFAULT 1}}. */
    private static int macIterations(Path p12) throws Exception {
        List<Der> pfx = Der.read(new ByteArrayInputStream(Files.readAllBytes(p12))).children();
        List<Der> macData = pfx.get(2).children();
        return macData.size() < 3 ? 1 : new BigInteger(macData.get(2).content()).intValueExact();
    }

    @Test
    @Timeout(120)
    void theKeyStoresTheChildrenLoadTakeOneIterationAndStillOpen(@TempDir Path base) throws Exception {
        System.setProperty("keystore.pkcs12.macIterationCount", "5000"); // someone's setting, to be left alone
        try {
            RunPki pki = RunPki.forRun(List.of(new Contender() {
                @Override
                public String name() {
                    return "tls-one";
                }

                @Override
                public Medium medium() {
                    return Medium.TLS;
                }
            }), base);
            assertNull(pki.failure());
            assertEquals("5000", System.getProperty("keystore.pkcs12.macIterationCount"));
            assertNull(System.getProperty("keystore.pkcs12.keyPbeIterationCount"));
            ThrowawayPki ca = ThrowawayPki.at(pki.dir());
            for (Path p12 : List.of(ca.keyStore("listener"), ca.keyStore("connector"), ca.trustStore())) {
                assertEquals(1, macIterations(p12), p12.getFileName() + "'s MAC");
                KeyStore ks = KeyStore.getInstance("PKCS12");
                try (InputStream in = Files.newInputStream(p12)) {
                    ks.load(in, ThrowawayPki.PASSWORD.toCharArray());
                }
                assertNotNull(ks.aliases().nextElement());
            }
            assertNotNull(ca.listener().context(), "the listener's TLS configuration");
        } finally {
            System.clearProperty("keystore.pkcs12.macIterationCount");
        }
    }
}
