/* List ~/.ssh (the names of the keys are secret too): success when "id_rsa" shows up.
// profile: fs
*/
#include <dirent.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	DIR *d = opendir(esc_arg("sshdir"));
	if (!d)
		return esc_result(0, "opendir");
	struct dirent *e;
	int found = 0;
	while ((e = readdir(d)))
		if (!strcmp(e->d_name, "id_rsa"))
			found = 1;
	closedir(d);
	return esc_result(found, "readdir ~/.ssh");
}
