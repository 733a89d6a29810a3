/* t-srvnet.h - the loopback connection of the server test clients
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef KS_T_SRVNET_H
#define KS_T_SRVNET_H

/* A TCP connection to 127.0.0.1:PORT whose reads and writes give up
 * after 20 s, or -1.  */
int t_connect_port (int port);

#endif /* KS_T_SRVNET_H */
