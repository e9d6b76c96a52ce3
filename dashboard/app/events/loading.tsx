import { PageLoading } from '@/ui/page/Loading';

export default PageLoading;
