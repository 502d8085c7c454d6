package dev.verbatim.examples;

// example:imports
import dev.verbatim.examples.Quotes.Quote;
import dev.verbatim.examples.WireExample.Order;
import dev.verbatim.examples.WireExample.Side;
import dev.verbatim.rpc.Node;
import dev.verbatim.transport.ThrowawayPki;
import dev.verbatim.transport.TlsConfig;

import java.nio.file.Files;
import java.nio.file.Path;
// end

/**
 * The README's TLS example: a server and a client node with mutual TLS 1.3 over tcp, each with its own
 * certificate signed by a CA the other trusts. The key material here is a throwaway CA made with the
 * JDK's keytool in a temporary directory (demos and tests only); in production it comes from your PKI as
 * PKCS#12 keystores or PEM files.
 */
public final class TlsExample {
    private TlsExample() {}

    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("verbatim-tls-example");
        ThrowawayPki pki = ThrowawayPki.create(dir);
        char[] pw = ThrowawayPki.PASSWORD.toCharArray();
        Path serverKeys = pki.keyStore("listener");
        Path clientKeys = pki.keyStore("connector");
        Path ca = pki.trustStore();
        // example:tls
        TlsConfig serverTls = TlsConfig.fromPkcs12(serverKeys, pw, ca, pw);   // or fromPem(chain, key, ca), of(sslContext)
        TlsConfig clientTls = TlsConfig.fromPkcs12(clientKeys, pw, ca, pw);   // mutual by default; .oneWay() if asked
        try (Node server = Node.listen(Node.DEFAULT_OPTIONS.withTls(serverTls), "tcp://127.0.0.1:0");
             Node client = Node.create(Node.DEFAULT_OPTIONS.withTls(clientTls), 1)) {
            server.export("quotes", Quotes.class, new RpcServerExample.QuotesImpl());
            String address = server.addresses().getFirst();              // the listener is checked by host name
            Quotes q = client.lookup(address, "quotes", Quotes.class);
            Quote best = q.quote(new Order(42, "ACME", Side.BUY, 100, 101.5));
            System.out.println("over TLS: " + best);
        }
        // end
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) Files.delete(f);
        }
        Files.delete(dir);
    }
}
