/* The version `ptxray --version` prints and the JSON and SARIF reports
 * name as their producer's. */
#ifndef PTXRAY_VERSION_H
#define PTXRAY_VERSION_H
#define PTXRAY_VERSION "0.1.0"
#endif
