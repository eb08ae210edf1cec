// Package nic is the RoCEv2 NIC model of spec/nic.md: queue pairs and the go-back-N
// transport, the PCIe host link, the NIC's ingress and egress buffer pools and PFC, the
// transmit scheduler, DCQCN rate control, and the NIC's records. One NIC serves one host
// and has one Ethernet port toward its rack switch.
package nic
