/* t-srvnet.c - the loopback connection of the server test clients
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include "t-srvnet.h"

int
t_connect_port (int port)
{
  struct sockaddr_in sa;
  struct timeval tv = { 20, 0 };
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

  if (fd < 0)
    return -1;
  setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt (fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  memset (&sa, 0, sizeof sa);
  sa.sin_family = AF_INET;
  sa.sin_port = htons (port);
  sa.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  if (connect (fd, (struct sockaddr *)&sa, sizeof sa))
    {
      close (fd);
      return -1;
    }
  return fd;
}
