package dev.verbatim.rpc;

import dev.verbatim.transport.ConnectionOptions;
import dev.verbatim.transport.ThrowawayPki;
import dev.verbatim.transport.TlsConfig;
import org.junit.jupiter.api.AfterAll;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** J-RPC's rules over mutual TLS 1.3 on tcp: the third transport of the contract. */
class TlsRpcTest extends RpcContract {
    private static final Path DIR;
    private static final TlsConfig TLS;

    static {
        try {
            DIR = Files.createTempDirectory("verbatim-rpc-pki");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        TLS = ThrowawayPki.create(DIR).listener();
    }

    @AfterAll
    static void removeCertificates() throws IOException {
        try (Stream<Path> files = Files.walk(DIR)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Override
    String address() {
        return "tcp://:0";
    }

    @Override
    ConnectionOptions options() {
        return Node.DEFAULT_OPTIONS.withTls(TLS);
    }
}
