package dev.verbatim.rpc;

class TcpRpcTest extends RpcContract {
    @Override
    String address() {
        return "tcp://:0";
    }
}
