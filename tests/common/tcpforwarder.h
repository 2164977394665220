// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A TCP forwarder for integration tests: listens on an address of ours and pipes every connection
// to a real peer. It injects faults on the wire (cutAll(): every connection dropped at once, as a
// network would) or puts a loopback-only server on an interface address (the Kubernetes API
// server's service proxy refuses loopback endpoints). The peer stays the real server.

#include <QHostAddress>
#include <QList>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>

namespace slicescope::testing {

class TcpForwarder : public QTcpServer
{
public:
    TcpForwarder(QHostAddress upstreamHost, quint16 upstreamPort)
        : m_host(std::move(upstreamHost))
        , m_port(upstreamPort)
    {
        connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *client = nextPendingConnection()) {
                auto *server = new QTcpSocket(client);
                server->connectToHost(m_host, m_port);
                connect(client, &QTcpSocket::readyRead, server, [client, server] { server->write(client->readAll()); });
                connect(server, &QTcpSocket::readyRead, client, [client, server] { client->write(server->readAll()); });
                connect(client, &QTcpSocket::disconnected, server, &QTcpSocket::disconnectFromHost);
                connect(server, &QTcpSocket::disconnected, client, &QTcpSocket::disconnectFromHost);
                m_clients << client;
            }
        });
    }
    // Drops every connection at once, with no orderly end on the HTTP level.
    void cutAll()
    {
        for (QTcpSocket *c : std::as_const(m_clients))
            if (c)
                c->abort();
        m_clients.clear();
    }

private:
    QHostAddress m_host;
    quint16 m_port;
    QList<QPointer<QTcpSocket>> m_clients;
};

} // namespace slicescope::testing
