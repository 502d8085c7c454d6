package dev.verbatim.rpc;

class TcpStreamedValuesTest extends StreamedValuesContract {
    @Override
    String address() {
        return "tcp://:0";
    }
}
